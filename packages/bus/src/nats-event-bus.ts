import { connect } from '@nats-io/transport-node';
import { headers as natsHeaders, type NatsConnection, type MsgHdrs } from '@nats-io/nats-core';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager, type JsMsg, type PubAck } from '@nats-io/jetstream';
import type { BusDeclaration } from './bus-declaration.ts';

/** The bus could not be reached or refused a request. */
export class BusError extends Error {
  readonly code: 'BUS_CONNECT_FAILED' | 'BUS_PUBLISH_FAILED' | 'BUS_PROVISION_FAILED';
  constructor(code: BusError['code'], message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'BusError';
    this.code = code;
  }
}

/** One received message, acked by the consumer loop only after the handler's work is committed. */
export interface BusMessage {
  readonly subject: string;
  readonly data: Uint8Array;
  readonly streamSeq: number;
  readonly redelivered: boolean;
  readonly headers: Readonly<Record<string, string>>;
}

/** JetStream connection with the pipeline's stream provisioned. */
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

  /** Connects (reconnecting forever), then creates or updates the stream and its durable consumers. */
  static async open(url: string, declaration: BusDeclaration, options: { name?: string; timeoutMs?: number } = {}): Promise<NatsEventBus> {
    let nc: NatsConnection;
    try {
      nc = await connect({ servers: url, name: options.name ?? 'portolan', maxReconnectAttempts: -1, reconnectTimeWait: 250, timeout: options.timeoutMs ?? 5000 });
    } catch (cause) {
      throw new BusError('BUS_CONNECT_FAILED', `cannot connect to NATS at ${url}`, { cause });
    }
    try {
      const jsm = await jetstreamManager(nc);
      const bus = new NatsEventBus(nc, jsm, declaration);
      await bus.provision();
      return bus;
    } catch (cause) {
      await nc.close();
      throw cause instanceof BusError ? cause : new BusError('BUS_PROVISION_FAILED', `cannot provision stream ${declaration.stream.name}`, { cause });
    }
  }

  /** Creates the stream and consumers, or updates them to the declaration. Idempotent. */
  async provision(): Promise<void> {
    const { stream, consumers } = this.declaration;
    try {
      await this.jsm.streams.info(stream.name);
      await this.jsm.streams.update(stream.name, stream);
    } catch (e) {
      if (!isNotFound(e)) throw new BusError('BUS_PROVISION_FAILED', `stream ${stream.name}: ${(e as Error).message}`, { cause: e });
      await this.jsm.streams.add(stream);
    }
    for (const consumer of Object.values(consumers)) {
      await this.jsm.consumers.add(stream.name, consumer);
    }
  }

  /** Publishes and waits for the stream's acknowledgement; `msgId` makes a republish a no-op within the dedup window. */
  async publish(subject: string, data: Uint8Array, options: { msgId: string; headers?: Readonly<Record<string, string>>; timeoutMs?: number }): Promise<PubAck> {
    const hdrs = toNatsHeaders(options.headers);
    try {
      return await this.js.publish(subject, data, { msgID: options.msgId, timeout: options.timeoutMs ?? 5000, ...(hdrs ? { headers: hdrs } : {}) });
    } catch (cause) {
      throw new BusError('BUS_PUBLISH_FAILED', `publish to ${subject} failed: ${(cause as Error).message}`, { cause });
    }
  }

  /**
   * Consumes a declared durable consumer in order until `signal` aborts. The handler's promise must settle
   * before the message is acked (double ack: the server confirms); a throwing handler naks with a delay.
   * A consume loop that stops (missed heartbeats after a server restart, FM-11) is recreated.
   */
  async consume(durable: string, handler: (m: BusMessage) => Promise<void>, options: { signal: AbortSignal; onError?: (e: unknown) => void; idleHeartbeatMs?: number }): Promise<void> {
    const streamName = this.declaration.stream.name;
    while (!options.signal.aborted) {
      try {
        const consumer = await this.js.consumers.get(streamName, durable);
        const messages = await consumer.consume({ max_messages: 256, idle_heartbeat: options.idleHeartbeatMs ?? 2000, expires: 10_000 });
        const stop = (): void => void messages.close();
        options.signal.addEventListener('abort', stop, { once: true });
        void (async () => {
          for await (const status of messages.status()) {
            if (status.type === 'heartbeats_missed' && status.count >= 3) messages.stop();
          }
        })();
        try {
          for await (const m of messages) {
            await this.handleOne(m, handler, options.onError);
            if (options.signal.aborted) break;
          }
        } finally {
          options.signal.removeEventListener('abort', stop);
          messages.stop();
        }
      } catch (e) {
        options.onError?.(e);
      }
      if (!options.signal.aborted) await new Promise((r) => setTimeout(r, 250));
    }
  }

  private async handleOne(m: JsMsg, handler: (m: BusMessage) => Promise<void>, onError?: (e: unknown) => void): Promise<void> {
    const message: BusMessage = { subject: m.subject, data: m.data, streamSeq: m.seq, redelivered: m.redelivered, headers: fromNatsHeaders(m.headers) };
    try {
      await handler(message);
    } catch (e) {
      onError?.(e);
      m.nak(1000);
      return;
    }
    await m.ackAck().catch((e: unknown) => onError?.(e));
  }

  /** Drains and closes the connection. */
  async close(): Promise<void> {
    if (!this.connection.isClosed()) await this.connection.drain().catch(() => this.connection.close());
  }
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
