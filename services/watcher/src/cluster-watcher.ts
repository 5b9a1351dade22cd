import { toBinary, WatcherHeartbeatSchema } from '@portolan/proto';
import { inspectTlsData, sealSecretData, type FleetKey } from '@portolan/secret-envelope';
import type { Logger, Registry, Tracer } from '@portolan/telemetry';
import {
  WATCHED_KINDS,
  checkServerVersion,
  heartbeatMessage,
  kindFreshness,
  kubeEventMessage,
  liveness,
  planWatchStreams,
  readiness,
  type KindFreshness,
  type NamespaceScope,
  type ObservedObject,
  type OutboundMessage,
  type SettledState,
  type StreamTiming,
  type WatchedKind,
} from './core/index.ts';
import type { KubeApiClient } from './adapters/kube-api-client.ts';
import { KubeEventRecorder } from './adapters/kube-event-recorder.ts';
import { BusPublisher, type PublishTarget } from './adapters/bus-publisher.ts';
import { createWatcherMetrics, type WatcherMetrics } from './adapters/watcher-metrics.ts';
import { KindTracker } from './kind-tracker.ts';
import { StreamRunner } from './stream-runner.ts';

/** Room kept in every bus message for the envelope around an object (ids, names, headers). */
const ENVELOPE_BYTES = 8 * 1024;

/** Everything one cluster's watcher is built from (main.ts reads it from the fleet config; tests build it). */
export interface ClusterWatcherOptions {
  readonly cluster: string;
  readonly namespaces: NamespaceScope;
  readonly secretLabelSelector: string;
  readonly timing: StreamTiming;
  readonly heartbeatMs: number;
  readonly client: KubeApiClient;
  readonly bus: PublishTarget;
  /** False while the bus connection is down. */
  readonly busConnected: () => boolean;
  /** The broker's max payload (min of the fleet config and the server's). */
  readonly maxMessageBytes: number;
  readonly fleetKey: FleetKey;
  readonly registry: Registry;
  readonly logger: Logger;
  readonly tracer: Tracer;
  readonly watcherId: string;
  readonly kinds?: readonly WatchedKind[];
  readonly listPageSize?: number;
  readonly maxPendingMessages?: number;
  readonly maxPendingBytes?: number;
  readonly maxInFlight?: number;
  readonly publishTimeoutMs?: number;
  readonly now?: () => number;
  readonly random?: () => number;
  /** Publishes have gone unanswered for STUCK_AFTER_S on a live connection: the stream takes no writes. */
  readonly onStreamStalled?: () => void;
}

/** How often in-flight publishes are checked, and how old one must be to be reported. */
const STUCK_CHECK_MS = 10_000;
const STUCK_AFTER_S = 30;

/**
 * One cluster's watcher: a supervised stream per kind (and namespace), a shared publisher, the supervisor clock,
 * heartbeats, freshness for /readyz and /metrics.
 */
export class ClusterWatcher {
  readonly trackers: readonly KindTracker[];
  readonly runners: readonly StreamRunner[];
  readonly publisher: BusPublisher;
  readonly metrics: WatcherMetrics;
  private readonly options: ClusterWatcherOptions;
  private readonly recorder: KubeEventRecorder;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly running: Promise<void>[] = [];
  private heartbeatInFlight = false;
  private stopped = false;

  private constructor(options: ClusterWatcherOptions) {
    this.options = options;
    const now = options.now ?? Date.now;
    const random = options.random ?? Math.random;
    const generationBase = BigInt(Math.floor(now())) * 1000n;
    this.trackers = (options.kinds ?? WATCHED_KINDS).map((k) => new KindTracker(k, generationBase));
    this.metrics = createWatcherMetrics(options.registry, {
      freshness: () => this.freshness(),
      objectCounts: () => this.trackers.map((t) => [t.kind.kind, t.ledger.size] as const),
      pendingMessages: () => this.publisher.pending,
    });
    this.recorder = new KubeEventRecorder(options.client);
    this.publisher = this.createPublisher(options, random);
    const streams = planWatchStreams(
      this.trackers.map((t) => t.kind),
      options.namespaces,
      options.secretLabelSelector,
    );
    const maxObjectBytes = Math.max(1024, options.maxMessageBytes - ENVELOPE_BYTES);
    this.runners = streams.map(
      (stream) =>
        new StreamRunner(stream, {
          cluster: options.cluster,
          client: options.client,
          tracker: this.trackers.find((t) => t.kind === stream.kind)!,
          timing: options.timing,
          listPageSize: options.listPageSize ?? 100,
          maxObjectBytes,
          maxMessageBytes: options.maxMessageBytes,
          seal: (data) => ({ ...sealSecretData(options.fleetKey, data), tls: inspectTlsData(data, now()) }),
          metrics: this.metrics,
          logger: options.logger,
          now,
          random,
          emit: (m) => this.publisher.enqueue(m),
          hasRoom: () => this.publisher.hasRoom(),
          onTooLarge: (kind, o, reason) => this.reportTooLarge(kind, o, reason),
        }),
    );
  }

  /** The publisher in front of JetStream: bounded queue, retries, metrics for every ack and retry. */
  private createPublisher(options: ClusterWatcherOptions, random: () => number): BusPublisher {
    return new BusPublisher({
      target: options.bus,
      maxPendingMessages: options.maxPendingMessages ?? 128,
      maxPendingBytes: options.maxPendingBytes ?? 4 * 1024 * 1024,
      maxInFlight: options.maxInFlight ?? 64,
      publishTimeoutMs: options.publishTimeoutMs ?? 5_000,
      tracer: options.tracer,
      random,
      connected: options.busConnected,
      onPublished: (m, seconds) => {
        const kind = kindOfSubject(m.subject);
        this.metrics.published.inc({ kind, type: m.type });
        this.metrics.publishLatency.observe({ kind }, seconds);
      },
      onRetry: (m, e, attempt) => {
        this.metrics.publishRetries.inc({ kind: kindOfSubject(m.subject) });
        if (attempt === 1 || attempt % 20 === 0)
          options.logger.warn(
            { subject: m.subject, msgId: m.msgId, attempt, err: (e as Error).message },
            'publish failed: holding and retrying',
          );
      },
      onTooLarge: (m) => this.stubFor(m),
    });
  }

  /** Every stream lists again (the broker may have lost messages it acknowledged: see StreamRunner). */
  relistAfterBrokerFault(): void {
    for (const r of this.runners) r.relistAfterBrokerFault();
  }

  /**
   * The planner found its state of these kinds differing from this watcher's ledger while both were settled: their
   * streams list again and republish everything. Unknown kind names are ignored. Returns the kinds relisted.
   */
  relistForMismatch(kinds: readonly string[]): string[] {
    const wanted = new Set(kinds);
    const hit = new Set<string>();
    for (const r of this.runners)
      if (wanted.has(r.stream.kind.kind)) {
        r.relistForMismatch();
        hit.add(r.stream.kind.kind);
      }
    return [...hit];
  }

  /**
   * Each kind's ledger digest, and whether it is settled: no message at all queued or awaiting its ack, and every
   * stream of the kind watching after a completed list. Only then has the stream stored everything the digest covers,
   * before this heartbeat.
   */
  private settledStates(): Map<WatchedKind, SettledState> {
    const idle = this.publisher.pending === 0;
    return new Map(
      this.trackers.map((t) => [
        t.kind,
        {
          settled: idle && t.states().every((s) => s.phase === 'watching' && s.synced),
          digest: t.ledger.digest,
        },
      ]),
    );
  }

  /** Starts every stream, the supervisor clock and the heartbeat. */
  static start(options: ClusterWatcherOptions): ClusterWatcher {
    const w = new ClusterWatcher(options);
    for (const r of w.runners)
      w.running.push(
        r.run().catch((e: unknown) => options.logger.fatal({ err: e }, 'stream supervisor crashed (bug)')),
      );
    const clockMs = Math.max(50, Math.min(1_000, options.timing.stallMs / 4));
    w.timers.push(setInterval(() => w.runners.forEach((r) => r.tick()), clockMs));
    w.timers.push(setInterval(() => w.sendHeartbeat(), options.heartbeatMs));
    w.timers.push(setInterval(() => w.reportStuckPublishes(), STUCK_CHECK_MS).unref());
    return w;
  }

  /** Reads `/version` and logs an error below Kubernetes 1.19 (the oldest the vTM integration documents). Returns the verdict. */
  async checkServerVersion(): Promise<ReturnType<typeof checkServerVersion>> {
    const verdict = checkServerVersion(await this.options.client.getJson('/version'));
    if (verdict.ok) this.options.logger.info({ version: verdict.version }, 'Kubernetes API server version');
    else this.options.logger.error({ reason: verdict.reason }, verdict.message);
    return verdict;
  }

  /** Freshness of every kind now. */
  freshness(): KindFreshness[] {
    const now = (this.options.now ?? Date.now)();
    return this.trackers.map((t) => kindFreshness(t.kind, t.states(), t.generation, this.options.timing.stallMs, now));
  }

  /** /readyz: every kind synced and fresh. */
  readiness(): { ok: true } | { ok: false; reason: string } {
    return readiness(this.freshness());
  }

  /** /healthz: no synced kind has gone silent. */
  liveness(): { ok: true } | { ok: false; reason: string } {
    return liveness(this.freshness());
  }

  /** Stops streams and timers; held messages are abandoned unless `flush` waits for them first. */
  async stop(options: { flush?: boolean } = {}): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    for (const r of this.runners) r.stop();
    await Promise.all(this.running);
    if (options.flush === true) await this.publisher.flushed();
    this.publisher.close();
  }

  private sendHeartbeat(): void {
    if (this.heartbeatInFlight || !this.options.busConnected()) return;
    this.heartbeatInFlight = true;
    const hb = heartbeatMessage(
      this.options.cluster,
      this.options.watcherId,
      this.freshness(),
      (this.options.now ?? Date.now)(),
      this.settledStates(),
    );
    this.options.bus
      .publish(hb.subject, toBinary(WatcherHeartbeatSchema, hb.message), { msgId: hb.msgId, timeoutMs: 2_000 })
      .catch((e: unknown) => this.options.logger.debug({ err: (e as Error).message }, 'heartbeat not published'))
      .finally(() => {
        this.heartbeatInFlight = false;
      });
  }

  /**
   * Logs messages in flight past STUCK_AFTER_S: each holds back every later change of its object. When the
   * connection is up, the stream is taking no writes: `onStreamStalled` (the stream leader's stepdown) is asked for.
   */
  private reportStuckPublishes(): void {
    const stuck = this.publisher.stuck(STUCK_AFTER_S);
    if (stuck.length === 0) return;
    this.options.logger.warn(
      { stuck: stuck.slice(0, 20), count: stuck.length },
      'publishes in flight for too long: later changes of these objects wait behind them',
    );
    if (this.options.busConnected() && stuck.some((m) => m.stage === 'publishing' || m.stage === 'backoff'))
      this.options.onStreamStalled?.();
  }

  private reportTooLarge(kind: string, o: ObservedObject, reason: string): void {
    this.metrics.tooLarge.inc({ kind });
    this.options.logger.error(
      { kind, namespace: o.namespace, name: o.name, resourceVersion: o.resourceVersion },
      reason,
    );
    const tracker = this.trackers.find((t) => t.kind.kind === kind);
    const apiVersion = tracker === undefined ? 'v1' : tracker.kind.apiPrefix.replace(/^\/apis?\//, '');
    this.recorder
      .warn(
        { apiVersion, kind, namespace: o.namespace, name: o.name, uid: o.uid, resourceVersion: o.resourceVersion },
        'ObjectTooLarge',
        `Portolan cannot carry this object: ${reason}. It is treated as invalid until it shrinks.`,
        new Date((this.options.now ?? Date.now)()),
      )
      .catch((e: unknown) =>
        this.options.logger.warn(
          { err: (e as Error).message, name: o.name },
          'could not record the ObjectTooLarge event',
        ),
      );
  }

  /** The broker refused an event for its size after all: publish its identity with an omitted reason instead. */
  private stubFor(m: OutboundMessage): OutboundMessage {
    if (m.type !== 'event') return m;
    const e = m.message;
    const tracker = this.trackers.find((t) => t.kind.protoKind === e.kind);
    if (tracker === undefined) return m;
    const o: ObservedObject = { namespace: e.namespace, name: e.name, uid: e.uid, resourceVersion: e.resourceVersion };
    const reason = `ObjectTooLarge: the broker refused ${e.object.length} bytes`;
    this.reportTooLarge(tracker.kind.kind, o, reason);
    const stub = new TextEncoder().encode(
      JSON.stringify({
        kind: tracker.kind.kind,
        metadata: { name: o.name, namespace: o.namespace, uid: o.uid, resourceVersion: o.resourceVersion },
      }),
    );
    const type = e.type === 1 ? 'ADDED' : e.type === 3 ? 'DELETED' : 'MODIFIED';
    return kubeEventMessage(e.cluster, tracker.kind, type, o, stub, {
      generation: e.listGeneration,
      observedAtMs: (this.options.now ?? Date.now)(),
      omittedReason: reason,
    });
  }
}

function kindOfSubject(subject: string): string {
  return subject.split('.')[2] ?? 'unknown';
}
