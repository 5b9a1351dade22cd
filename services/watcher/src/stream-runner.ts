import type http from 'node:http';
import type { Logger } from '@portolan/telemetry';
import {
  advanceStream,
  checkStreamClock,
  chunkListMarkerKeys,
  decodeListPage,
  decodeWatchLine,
  initialStreamState,
  kubeEventMessage,
  listMarkerMessages,
  prepareObject,
  streamRequestPath,
  tombstoneBytes,
  type ObservedObject,
  type OutboundMessage,
  type SealSecretData,
  type StreamFailure,
  type StreamInput,
  type StreamState,
  type StreamStep,
  type StreamTiming,
  type WatchEventType,
  type WatchStream,
} from './core/index.ts';
import { objectKey } from '@portolan/kube-model';
import { KubeApiError, type KubeApiClient } from './adapters/kube-api-client.ts';
import type { WatcherMetrics } from './adapters/watcher-metrics.ts';
import type { KindTracker } from './kind-tracker.ts';

/** What a stream runner needs from the watcher around it. */
export interface StreamRunnerDeps {
  readonly cluster: string;
  readonly client: KubeApiClient;
  readonly tracker: KindTracker;
  readonly timing: StreamTiming;
  readonly listPageSize: number;
  /** Largest trimmed object carried in full; larger ones are published without their body. */
  readonly maxObjectBytes: number;
  /** Largest bus message (list-marker chunks stay under it). */
  readonly maxMessageBytes: number;
  readonly seal: SealSecretData;
  readonly metrics: WatcherMetrics;
  readonly logger: Logger;
  readonly now: () => number;
  readonly random: () => number;
  readonly emit: (m: OutboundMessage) => Promise<void>;
  readonly hasRoom: () => boolean;
  readonly onTooLarge: (kind: string, o: ObservedObject, reason: string) => void;
}

/** A 410 inside a watch stream, or on a list page. */
class GoneError extends Error {
  readonly code = 'WATCH_GONE';
}

/** A line or object that cannot be decoded. */
class GarbledError extends Error {
  readonly code = 'WATCH_GARBLED';
}

/**
 * Supervises one list/watch stream for as long as the watcher runs: it never gives up. The decisions
 * are the pure state machine's (`advanceStream`); this class only performs requests and feeds it what happened.
 */
export class StreamRunner {
  readonly stream: WatchStream;
  private readonly deps: StreamRunnerDeps;
  private readonly agent: http.Agent;
  private readonly stopper = new AbortController();
  private current: { controller: AbortController; reason?: StreamFailure } | null = null;
  private blockedOnBus = false;
  private listReason = 'initial';
  /** A relist that republishes everything, asked for (after a broker fault, or by the planner), not yet begun. */
  private republishAsked: 'broker-fault' | 'state-mismatch' | null = null;
  private stateValue: StreamState;

  constructor(stream: WatchStream, deps: StreamRunnerDeps) {
    this.stream = stream;
    this.deps = deps;
    this.agent = deps.client.createAgent();
    this.stateValue = initialStreamState(deps.now());
    deps.tracker.addStream(() => this.stateValue);
  }

  /** The supervision state (for freshness, readiness and tests). */
  get state(): StreamState {
    return this.stateValue;
  }

  /** Runs until `stop()`. */
  async run(): Promise<void> {
    let step: StreamStep = { type: 'list' };
    while (!this.stopper.signal.aborted) {
      if (step.type === 'wait') {
        await sleep(step.ms, this.stopper.signal);
        step = this.dispatch({ type: 'waited' }) ?? step;
      } else if (step.type === 'list') {
        step = await this.attempt(() => this.list());
      } else {
        const watch = step;
        step = await this.attempt(() => this.watch(watch.resourceVersion, watch.timeoutSeconds));
      }
    }
  }

  /**
   * Asks for a relist because the broker may have lost what it acknowledged: a watch under way ends for a list at
   * once; a list or a wait under way is followed by one (its messages may have gone out before the fault).
   */
  relistAfterBrokerFault(): void {
    this.republishAsked = 'broker-fault';
    this.tick();
  }

  /** Like `relistAfterBrokerFault`, because the planner's state of this kind disagrees with the ledger. */
  relistForMismatch(): void {
    this.republishAsked ??= 'state-mismatch';
    this.tick();
  }

  /** Applies the supervisor clock: abandons a request that stalled or outlived the relist period. */
  tick(): void {
    if (this.current === null || this.blockedOnBus || this.current.reason !== undefined) return;
    if (this.republishAsked !== null && this.stateValue.phase === 'watching') {
      this.deps.logger.warn(
        { stream: this.stream.id, reason: this.republishAsked },
        'relisting: the broker may have lost acknowledged messages',
      );
      this.current.reason = this.republishAsked;
      this.current.controller.abort();
      return;
    }
    const verdict = checkStreamClock(this.stateValue, this.deps.timing, this.deps.now());
    if (verdict === 'ok') return;
    this.deps.logger.warn(
      { stream: this.stream.id, verdict, silentMs: this.deps.now() - this.stateValue.lastFreshAt },
      verdict === 'stalled' ? 'watch stalled: restarting with a relist' : 'periodic relist',
    );
    this.current.reason = verdict;
    this.current.controller.abort();
  }

  /** Stops the stream and closes its socket. */
  stop(): void {
    this.stopper.abort();
    this.current?.controller.abort();
    this.agent.destroy();
  }

  private dispatch(input: StreamInput): StreamStep | null {
    const r = advanceStream(this.stateValue, input, this.deps.timing, this.deps.now(), this.deps.random());
    this.stateValue = r.state;
    return r.step;
  }

  private async attempt(run: () => Promise<StreamStep>): Promise<StreamStep> {
    const controller = new AbortController();
    this.current = { controller };
    try {
      return await run();
    } catch (e) {
      if (this.stopper.signal.aborted) return { type: 'wait', ms: 0 };
      const failure = this.current.reason ?? classify(e, this.stream.kind.optional === true);
      controller.abort();
      this.record(failure, e);
      const next = this.dispatch({ type: 'failed', failure });
      if (next?.type === 'list') this.listReason = failure;
      return next ?? { type: 'list' };
    } finally {
      this.current = null;
    }
  }

  private record(failure: StreamFailure, e: unknown): void {
    const kind = this.stream.kind.kind;
    this.deps.metrics.restarts.inc({ kind, reason: failure });
    if (e instanceof KubeApiError) this.deps.metrics.requestErrors.inc({ kind, status: String(e.status) });
    const level = failure === 'transient' ? 'warn' : 'info';
    this.deps.logger[level]({ stream: this.stream.id, failure, err: (e as Error).message }, 'stream interrupted');
  }

  private get signal(): AbortSignal {
    return this.current!.controller.signal;
  }

  private async list(): Promise<StreamStep> {
    const { tracker, metrics } = this.deps;
    metrics.relists.inc({ kind: tracker.kind.kind, reason: this.listReason });
    // A republish asked for is taken up by this list; one asked for while it runs needs another list after it.
    const republish = this.republishAsked ?? republishReason(this.listReason);
    this.republishAsked = null;
    const generation = tracker.nextGeneration();
    try {
      const resourceVersion = await this.listAll(generation, republish !== null);
      this.listReason = 'relist-due';
      return this.dispatch({ type: 'listed', resourceVersion }) ?? { type: 'list' };
    } catch (e) {
      if (this.stream.kind.optional === true && e instanceof KubeApiError && e.status === 404)
        return this.absent(generation, republish !== null);
      // A republishing list cut short must be made whole by the next one.
      if (republish !== null) this.republishAsked ??= republish;
      throw e;
    }
  }

  /**
   * The server does not serve the kind (its CRD is not installed, or was removed with all its objects): the kind is
   * listed as empty, so what the ledger held is deleted and the planner sees the kind complete, and it is looked for
   * again later.
   */
  private async absent(generation: bigint, republish: boolean): Promise<StreamStep> {
    const known = this.stateValue.synced && this.deps.tracker.ledger.keys().length === 0;
    // Looked for again and still absent, with nothing to delete: the planner has the empty list already.
    if (!known || republish) {
      if (!known)
        this.deps.logger.info({ stream: this.stream.id }, 'kind not served by the API server: taken as empty');
      await this.finishList('', new Set(), generation);
    }
    this.listReason = 'absent-recheck';
    return this.dispatch({ type: 'absent' }) ?? { type: 'list' };
  }

  /** Lists every page, publishing what changed (everything when `republish`), then the deletes and the marker. */
  private async listAll(generation: bigint, republish: boolean): Promise<string> {
    const seen = new Set<string>();
    let continueToken: string | undefined;
    let resourceVersion = '';
    do {
      const page = await this.listPage(continueToken, seen, generation, republish);
      this.dispatch({ type: 'alive' });
      for (const m of page.messages) await this.emit(m);
      continueToken = page.continueToken;
      resourceVersion = page.resourceVersion;
    } while (continueToken !== undefined);
    await this.finishList(resourceVersion, seen, generation);
    return resourceVersion;
  }

  /**
   * Fetches one list page and turns it into messages at once, so the decoded page (several times the size of its
   * trimmed objects) is garbage before the publisher's backpressure makes this stream wait: waiting on a page kept
   * it alive long enough to be promoted to the old generation, which is what made the heap grow during a sync.
   */
  private async listPage(
    continueToken: string | undefined,
    seen: Set<string>,
    generation: bigint,
    republish: boolean,
  ): Promise<{ messages: OutboundMessage[]; continueToken: string | undefined; resourceVersion: string }> {
    const path = streamRequestPath(this.stream, {
      type: 'list',
      limit: this.deps.listPageSize,
      ...(continueToken === undefined ? {} : { continueToken }),
    });
    const page = decodeListPage(await this.deps.client.getJson(path, { agent: this.agent, signal: this.signal }));
    if (!page.ok) throw new GarbledError(page.detail);
    const messages: OutboundMessage[] = [];
    for (const item of page.items) {
      const m = this.listItem(item, seen, generation, republish);
      if (m !== null) messages.push(m);
    }
    return { messages, continueToken: page.continueToken, resourceVersion: page.resourceVersion };
  }

  private listItem(item: unknown, seen: Set<string>, generation: bigint, republish: boolean): OutboundMessage | null {
    const kind = this.stream.kind;
    const p = prepareObject(kind.kind, item, { maxObjectBytes: this.deps.maxObjectBytes, seal: this.deps.seal });
    if (!p.ok) {
      // One undecodable list item must not block the others: count it and go on (a watch event would force a relist).
      this.deps.metrics.decodeErrors.inc({ kind: kind.kind });
      this.deps.logger.error({ stream: this.stream.id, reason: p.reason }, 'list item skipped: cannot decode');
      return null;
    }
    seen.add(objectKey(p.identity.namespace, p.identity.name));
    const change = this.deps.tracker.ledger.observeListItem(p.identity, republish);
    if (change === null) return null;
    if (p.omittedReason !== '') this.deps.onTooLarge(kind.kind, p.identity, p.omittedReason);
    return kubeEventMessage(this.deps.cluster, kind, change, p.identity, p.bytes, {
      generation,
      observedAtMs: this.deps.now(),
      omittedReason: p.omittedReason,
      republish,
    });
  }

  private async finishList(resourceVersion: string, seen: ReadonlySet<string>, generation: bigint): Promise<void> {
    const { tracker, cluster } = this.deps;
    const kind = this.stream.kind;
    for (const gone of tracker.ledger.removeUnlisted(this.stream.namespace, seen)) {
      await this.emit(
        kubeEventMessage(cluster, kind, 'DELETED', gone, tombstoneBytes(kind.kind, gone), {
          generation,
          observedAtMs: this.deps.now(),
          omittedReason: '',
          noticedByRelist: true,
        }),
      );
    }
    // A marker lists the whole kind: only once every stream of the kind has listed, or it would delete their objects.
    const others = tracker.states().filter((s) => s !== this.stateValue);
    if (!others.every((s) => s.synced)) return;
    const chunks = chunkListMarkerKeys(tracker.ledger.keys(), this.deps.maxMessageBytes);
    for (const m of listMarkerMessages(cluster, kind, resourceVersion, generation, chunks, this.deps.now()))
      await this.emit(m);
  }

  private async watch(resourceVersion: string, timeoutSeconds: number): Promise<StreamStep> {
    const path = streamRequestPath(this.stream, { type: 'watch', resourceVersion, timeoutSeconds });
    const conn = await this.deps.client.openWatch(path, { agent: this.agent, signal: this.signal });
    this.dispatch({ type: 'alive' });
    for await (const line of conn.lines()) {
      const event = decodeWatchLine(line);
      switch (event.type) {
        case 'garbled':
          this.deps.metrics.decodeErrors.inc({ kind: this.stream.kind.kind });
          throw new GarbledError(event.detail);
        case 'ERROR':
          // The stream stays open after an in-stream 410 on some servers: leaving this loop aborts it.
          if (event.code === 410) throw new GoneError(`in-stream ${event.reason}: ${event.message}`);
          throw new KubeApiError(event.code, event.reason, `in-stream error: ${event.message}`);
        case 'BOOKMARK':
          this.dispatch({ type: 'progressed', resourceVersion: event.resourceVersion });
          break;
        default:
          await this.watchEvent(event.type, event.object);
          this.dispatch({ type: 'progressed', resourceVersion: event.resourceVersion });
      }
    }
    const rest = conn.remainder();
    if (rest.trim() !== '') {
      this.deps.metrics.decodeErrors.inc({ kind: this.stream.kind.kind });
      throw new GarbledError(`truncated event at end of stream (${rest.length} chars)`);
    }
    return this.dispatch({ type: 'watch-ended' }) ?? { type: 'list' };
  }

  private async watchEvent(type: WatchEventType, raw: unknown): Promise<void> {
    const kind = this.stream.kind;
    const p = prepareObject(kind.kind, raw, { maxObjectBytes: this.deps.maxObjectBytes, seal: this.deps.seal });
    if (!p.ok) {
      this.deps.metrics.decodeErrors.inc({ kind: kind.kind });
      throw new GarbledError(p.reason);
    }
    if (!this.deps.tracker.ledger.observeWatchEvent(type, p.identity)) return;
    if (p.omittedReason !== '' && type !== 'DELETED') this.deps.onTooLarge(kind.kind, p.identity, p.omittedReason);
    await this.emit(
      kubeEventMessage(this.deps.cluster, kind, type, p.identity, p.bytes, {
        generation: this.deps.tracker.generation,
        observedAtMs: this.deps.now(),
        omittedReason: p.omittedReason,
      }),
    );
  }

  private async emit(m: OutboundMessage): Promise<void> {
    if (this.deps.hasRoom()) return this.deps.emit(m);
    // Backpressure: the bus is behind (or down). Stop reading the API server; this is not a stall.
    this.blockedOnBus = true;
    try {
      await this.deps.emit(m);
    } finally {
      this.blockedOnBus = false;
      this.dispatch({ type: 'resumed' });
    }
  }
}

/** `optional`: the kind is served only while its CRD is installed, so a 404 may mean it was removed: list to see. */
function classify(e: unknown, optional: boolean): StreamFailure {
  if (e instanceof GoneError) return 'gone';
  if (optional && e instanceof KubeApiError && e.status === 404) return 'gone';
  if (e instanceof GarbledError) return 'garbled';
  if (e instanceof KubeApiError && e.status === 410) return 'gone';
  return 'transient';
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** The republish a list for `reason` stands for, if any. */
function republishReason(reason: string): 'broker-fault' | 'state-mismatch' | null {
  return reason === 'broker-fault' || reason === 'state-mismatch' ? reason : null;
}
