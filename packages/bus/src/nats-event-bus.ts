import { connect } from '@nats-io/transport-node';
import { headers as natsHeaders, type NatsConnection, type MsgHdrs } from '@nats-io/nats-core';
import {
  jetstream,
  jetstreamManager,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type PubAck,
} from '@nats-io/jetstream';
import { PortolanError } from '@portolan/errors';
import type { BusDeclaration } from './bus-declaration.ts';
import { provisionPatiently } from './patient-provision.ts';

/** The bus could not be reached or refused a request. */
export class BusError extends PortolanError {
  readonly code: 'BUS_CONNECT_FAILED' | 'BUS_PUBLISH_FAILED' | 'BUS_PROVISION_FAILED';
  constructor(code: BusError['code'], message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}

/**
 * The servers a bus URL names: one URL, or a cluster's URLs separated by commas (the fleet config's list form). The
 * client connects to any of them and, when that node goes away, reconnects to another (and learns the cluster's
 * other nodes from the server), for ever.
 */
export function natsServers(url: string): string[] {
  return url
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** One received message, acked by the consumer loop only after the handler's work is committed. */
export interface BusMessage {
  readonly subject: string;
  readonly data: Uint8Array;
  readonly streamSeq: number;
  readonly redelivered: boolean;
  readonly headers: Readonly<Record<string, string>>;
}

/** JetStream connection with the pipeline's streams provisioned. */
export class NatsEventBus {
  readonly connection: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly declaration: BusDeclaration;

  private constructor(connection: NatsConnection, jsm: JetStreamManager, declaration: BusDeclaration) {
    this.connection = connection;
    this.jsm = jsm;
    this.js = jetstream(connection);
    this.declaration = declaration;
  }

  /**
   * Connects (reconnecting forever), then creates or updates the stream and its durable consumers.
   * `noAsyncTraces` spares the client three stack-capturing Errors per request (a high-rate publisher's main
   * garbage); failures then carry the client's own stack only. Provisioning rides through a cluster that is electing
   * or catching up for `provisionDeadlineMs` (default 60 s) before the open fails.
   */
  static async open(
    url: string,
    declaration: BusDeclaration,
    options: { name?: string; timeoutMs?: number; noAsyncTraces?: boolean; provisionDeadlineMs?: number } = {},
  ): Promise<NatsEventBus> {
    let nc: NatsConnection;
    try {
      nc = await connect({
        servers: natsServers(url),
        name: options.name ?? 'portolan',
        maxReconnectAttempts: -1,
        reconnectTimeWait: 250,
        // A node that hangs (paused, overloaded, cut off without a reset) keeps its socket open: two pings unanswered
        // 1.5 s apart make the client move to another node, where the default (two minutes) would leave it waiting.
        // A client that itself stalls that long only reconnects; what it had in flight is resent.
        pingInterval: 1500,
        maxPingOut: 2,
        timeout: options.timeoutMs ?? 5000,
        noAsyncTraces: options.noAsyncTraces ?? false,
      });
    } catch (cause) {
      throw new BusError('BUS_CONNECT_FAILED', `cannot connect to NATS at ${url}`, { cause });
    }
    try {
      const bus = await provisionPatiently(() => NatsEventBus.provisioned(nc, declaration), {
        deadlineMs: options.provisionDeadlineMs,
      });
      return bus;
    } catch (cause) {
      await nc.close();
      throw cause instanceof BusError
        ? cause
        : new BusError(
            'BUS_PROVISION_FAILED',
            `cannot provision streams ${declaration.kube.name}, ${declaration.pipeline.name}`,
            { cause },
          );
    }
  }

  /** A bus on `nc` with its streams and consumers provisioned. */
  private static async provisioned(nc: NatsConnection, declaration: BusDeclaration): Promise<NatsEventBus> {
    const bus = new NatsEventBus(nc, await jetstreamManager(nc), declaration);
    await bus.provision();
    return bus;
  }

  /** Creates the streams and consumers, or updates them to the declaration. Idempotent. */
  async provision(): Promise<void> {
    const { kube, pipeline, consumers } = this.declaration;
    for (const stream of [kube, pipeline]) {
      try {
        await this.jsm.streams.info(stream.name);
        await this.jsm.streams.update(stream.name, stream);
      } catch (e) {
        if (!isNotFound(e))
          throw new BusError('BUS_PROVISION_FAILED', `stream ${stream.name}: ${(e as Error).message}`, { cause: e });
        await this.jsm.streams.add(stream);
      }
    }
    for (const consumer of Object.values(consumers)) await this.jsm.consumers.add(kube.name, consumer);
  }

  /** The wire subject of a logical subject (`kube.dev.ingress` → `<prefix>.kube.dev.ingress`). Use it for raw subscriptions. */
  subject(logical: string): string {
    return this.declaration.subjectPrefix === '' ? logical : `${this.declaration.subjectPrefix}.${logical}`;
  }

  /** The logical subject of a wire subject (the prefix removed). */
  logicalSubject(wire: string): string {
    const p = this.declaration.subjectPrefix;
    return p !== '' && wire.startsWith(`${p}.`) ? wire.slice(p.length + 1) : wire;
  }

  /** Publishes and waits for the stream's acknowledgement; `msgId` makes a republish a no-op within the dedup window. */
  async publish(
    subject: string,
    data: Uint8Array,
    options: { msgId: string; headers?: Readonly<Record<string, string>>; timeoutMs?: number },
  ): Promise<PubAck> {
    const hdrs = toNatsHeaders(options.headers);
    try {
      return await this.js.publish(this.subject(subject), data, {
        msgID: options.msgId,
        timeout: options.timeoutMs ?? 5000,
        ...(hdrs ? { headers: hdrs } : {}),
      });
    } catch (cause) {
      throw new BusError('BUS_PUBLISH_FAILED', `publish to ${subject} failed: ${(cause as Error).message}`, { cause });
    }
  }

  /** First and last sequence of the kube stream (0/0 when empty): the planner checks them for lost history. */
  async kubeStreamBounds(): Promise<{ firstSeq: number; lastSeq: number }> {
    const info = await this.jsm.streams.info(this.declaration.kube.name);
    return { firstSeq: info.state.first_seq, lastSeq: info.state.last_seq };
  }

  /**
   * Reads one kube-stream message by sequence (gap filling); null only when the stream answers that it holds no
   * such message (JetStream's 10037). Anything else — a stream with no leader, a node not yet current that answers
   * "stream not found", a timeout — rejects: the caller must not take a message it could not read for one that is
   * gone, or it would skip an event that exists.
   */
  async getKubeMessage(seq: number): Promise<BusMessage | null> {
    const m = await this.jsm.streams.getMessage(this.declaration.kube.name, { seq });
    if (m === null) return null;
    return {
      subject: this.logicalSubject(m.subject),
      data: m.data,
      streamSeq: m.seq,
      redelivered: false,
      headers: fromNatsHeaders(m.header),
    };
  }

  /**
   * Consumes a durable consumer of the kube stream until `signal` aborts, handing the handler every message that
   * arrived while it was busy (group commit: batch size 1 when idle, larger under load). Messages are acked only
   * after the handler's promise resolves (its work is committed); a throwing handler naks the batch. A consume loop
   * that stops (missed heartbeats after a server restart) is recreated. Heartbeats come every second by default:
   * when the consumer's leader moves to another node of a cluster, the client re-pulls after two missed ones (the
   * client's own rule), so consumption resumes about 2 s after the loss, not 4; sooner still when the consumer's
   * leader-elected advisory arrives first, which restarts the pull at once.
   */
  async consumeBatches(
    durable: string,
    handler: (batch: readonly BusMessage[]) => Promise<void>,
    options: { signal: AbortSignal; maxBatch?: number; onError?: (e: unknown) => void; idleHeartbeatMs?: number },
  ): Promise<void> {
    const maxBatch = options.maxBatch ?? 500;
    while (!options.signal.aborted) {
      try {
        const consumer = await this.js.consumers.get(this.declaration.kube.name, durable);
        const messages = await consumer.consume({
          max_messages: Math.max(maxBatch, 64),
          idle_heartbeat: options.idleHeartbeatMs ?? 1000,
          expires: 10_000,
        });
        const stop = (): void => void messages.close();
        options.signal.addEventListener('abort', stop, { once: true });
        // The consumer's leader moved (its node was lost, or it stepped down): pull from the new one at once rather
        // than after the missed heartbeats.
        const moved = this.connection.subscribe(
          `$JS.EVENT.ADVISORY.CONSUMER.LEADER_ELECTED.${this.declaration.kube.name}.${durable}`,
          { callback: () => messages.stop() },
        );
        void (async () => {
          for await (const status of messages.status()) {
            if (status.type === 'heartbeats_missed' && status.count >= 3) messages.stop();
          }
        })();
        try {
          await this.drain(messages, handler, maxBatch, options);
        } finally {
          options.signal.removeEventListener('abort', stop);
          moved.unsubscribe();
          messages.stop();
        }
      } catch (e) {
        options.onError?.(e);
      }
      if (!options.signal.aborted) await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** Reads the iterator into a queue and runs the handler on whatever queued up while the previous batch ran. */
  private async drain(
    messages: AsyncIterable<JsMsg>,
    handler: (batch: readonly BusMessage[]) => Promise<void>,
    maxBatch: number,
    options: { signal: AbortSignal; onError?: (e: unknown) => void },
  ): Promise<void> {
    const queue: JsMsg[] = [];
    // Held in an object so TypeScript does not narrow the callback away across the closures.
    const state: { wake: (() => void) | null; ended: boolean } = { wake: null, ended: false };
    // The iterator throws when the connection closes under it (a killed broker, a closing client); either way the
    // loop below must end, so the reader marks the end in `finally` and hands the error to `onError`.
    const reader = (async () => {
      try {
        for await (const m of messages) {
          queue.push(m);
          state.wake?.();
        }
      } catch (e) {
        if (!options.signal.aborted) options.onError?.(e);
      } finally {
        state.ended = true;
        state.wake?.();
      }
    })();
    const wakeOnAbort = (): void => state.wake?.();
    options.signal.addEventListener('abort', wakeOnAbort, { once: true });
    while (!options.signal.aborted) {
      if (queue.length === 0) {
        if (state.ended) break;
        await new Promise<void>((r) => (state.wake = r));
        state.wake = null;
        continue;
      }
      const batch = queue.splice(0, maxBatch);
      try {
        await handler(batch.map((m) => toBusMessage(m, this.logicalSubject(m.subject))));
      } catch (e) {
        options.onError?.(e);
        for (const m of batch) m.nak(500);
        continue;
      }
      for (const m of batch.slice(0, -1)) m.ack();
      await batch[batch.length - 1]!.ackAck().catch((e: unknown) => options.onError?.(e));
    }
    options.signal.removeEventListener('abort', wakeOnAbort);
    await reader;
  }

  /**
   * Asks the kube stream's leader to step down, so that another replica leads. nats-server 2.9 can leave a stream
   * whose leader changed taking no writes for minutes ("high message lag" on the leader, every publish unanswered)
   * with a quorum of replicas up; a new leader takes writes again. Rejects when the stream answers with an error.
   */
  async stepDownKubeLeader(): Promise<void> {
    const reply = await this.connection.request(
      `$JS.API.STREAM.LEADER.STEPDOWN.${this.declaration.kube.name}`,
      undefined,
      {
        timeout: 5000,
      },
    );
    const answer = JSON.parse(new TextDecoder().decode(reply.data)) as { error?: { description?: string } };
    if (answer.error !== undefined)
      throw new BusError(
        'BUS_PUBLISH_FAILED',
        `stream leader stepdown refused: ${answer.error.description ?? 'error'}`,
      );
  }

  /** Sends `data` on a plain NATS subject (no stream, no ack): for requests that are simply asked again if lost. */
  notify(logical: string, data: Uint8Array): void {
    this.connection.publish(this.subject(logical), data);
  }

  /** Receives plain NATS messages on `logical` until the returned function is called. */
  listen(logical: string, handler: (data: Uint8Array) => void): () => void {
    const sub = this.connection.subscribe(this.subject(logical), {
      callback: (err, m) => {
        if (err === null) handler(m.data);
      },
    });
    return () => sub.unsubscribe();
  }

  /** Drains and closes the connection. */
  async close(): Promise<void> {
    if (!this.connection.isClosed()) await this.connection.drain().catch(() => this.connection.close());
  }
}

function toBusMessage(m: JsMsg, subject: string): BusMessage {
  return { subject, data: m.data, streamSeq: m.seq, redelivered: m.redelivered, headers: fromNatsHeaders(m.headers) };
}

function isNotFound(e: unknown): boolean {
  const msg = String((e as Error)?.message ?? e);
  return /not found/i.test(msg);
}

function toNatsHeaders(h: Readonly<Record<string, string>> | undefined): MsgHdrs | undefined {
  if (h === undefined || Object.keys(h).length === 0) return undefined;
  const out = natsHeaders();
  for (const [k, v] of Object.entries(h)) out.set(k, v);
  return out;
}

function fromNatsHeaders(h: MsgHdrs | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (h === undefined) return out;
  for (const k of h.keys()) out[k] = h.get(k);
  return out;
}
