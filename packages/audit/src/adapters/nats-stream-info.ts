import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { heartbeatSubject, natsServers } from '@portolan/bus';
import { errorMessage } from '@portolan/errors';

/** The kube stream's bounds, or why they could not be read. */
export type StreamInfo =
  | {
      readonly ok: true;
      readonly stream: string;
      readonly firstSeq: number;
      readonly lastSeq: number;
      readonly messages: number;
    }
  | { readonly ok: false; readonly stream: string; readonly message: string };

/** The newest heartbeat a cluster's watcher published into the stream (folded by the planner or not). */
export interface PublishedHeartbeat {
  readonly seq: number;
  /** When JetStream stored it. */
  readonly at: Date;
}

/** A durable consumer as JetStream sees it: what it acknowledged, and how much it had redelivered. */
export interface DurableConsumerView {
  readonly name: string;
  readonly ackFloor: number;
  readonly delivered: number;
  readonly ackPending: number;
  readonly redelivered: number;
}

/** What `portolan status` reads from the bus; heartbeats and consumer are empty when the stream could not be read. */
export interface BusView {
  readonly stream: StreamInfo;
  readonly heartbeats: ReadonlyMap<string, PublishedHeartbeat>;
  readonly consumer: DurableConsumerView | null;
}

/** Reads a JetStream stream's state without provisioning anything (status must not create streams). */
export async function readStreamInfo(url: string, stream: string, timeoutMs = 3000): Promise<StreamInfo> {
  return (await readBusView(url, stream, { subjectPrefix: '', clusters: [], durable: null, timeoutMs })).stream;
}

/**
 * Reads the stream's bounds, each cluster's newest published heartbeat (`last_by_subj`, one request per cluster) and
 * the planner's durable consumer, without provisioning anything. The heartbeats are what tells a silent watcher (no
 * heartbeat published) from a planner that does not fold them (published, not archived).
 */
export async function readBusView(
  url: string,
  stream: string,
  o: { subjectPrefix: string; clusters: readonly string[]; durable: string | null; timeoutMs?: number },
): Promise<BusView> {
  const timeout = o.timeoutMs ?? 3000;
  let nc;
  try {
    nc = await connect({ servers: natsServers(url), name: 'portolan-status', timeout, maxReconnectAttempts: 0 });
  } catch (e) {
    // `portolan status` reports an unreachable broker as a finding (with what it could still read), not a crash.
    return {
      stream: { ok: false, stream, message: `cannot connect to NATS at ${url}: ${errorMessage(e)}` },
      heartbeats: new Map(),
      consumer: null,
    };
  }
  try {
    const jsm = await jetstreamManager(nc, { timeout });
    const info = await jsm.streams.info(stream);
    const heartbeats = new Map<string, PublishedHeartbeat>();
    for (const cluster of o.clusters) {
      const subject =
        o.subjectPrefix === '' ? heartbeatSubject(cluster) : `${o.subjectPrefix}.${heartbeatSubject(cluster)}`;
      const m = await jsm.streams.getMessage(stream, { last_by_subj: subject }).catch(notFoundAsNull);
      if (m !== null) heartbeats.set(cluster, { seq: m.seq, at: m.time });
    }
    return {
      stream: {
        ok: true,
        stream,
        firstSeq: info.state.first_seq,
        lastSeq: info.state.last_seq,
        messages: info.state.messages,
      },
      heartbeats,
      consumer: o.durable === null ? null : await durableView(jsm, stream, o.durable),
    };
  } catch (e) {
    // A missing stream or a JetStream error is likewise a finding of the status report.
    return {
      stream: { ok: false, stream, message: `stream ${stream}: ${errorMessage(e)}` },
      heartbeats: new Map(),
      consumer: null,
    };
  } finally {
    // The answer is already read: a connection that fails while closing changes nothing the report says.
    await nc.close().catch(() => undefined);
  }
}

async function durableView(
  jsm: JetStreamManager,
  stream: string,
  durable: string,
): Promise<DurableConsumerView | null> {
  const c = await jsm.consumers.info(stream, durable).catch(notFoundAsNull);
  if (c === null) return null;
  return {
    name: durable,
    ackFloor: c.ack_floor.stream_seq,
    delivered: c.delivered.stream_seq,
    ackPending: c.num_ack_pending,
    redelivered: c.num_redelivered,
  };
}

/** A missing message or consumer is an answer (none), not a failure; anything else is. */
function notFoundAsNull(e: unknown): null {
  const text = `${(e as { code?: unknown }).code ?? ''} ${(e as Error).message ?? ''}`;
  if (/404|10037|10014|not found/i.test(text)) return null;
  throw e;
}
