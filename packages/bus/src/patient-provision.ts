import { TimeoutError } from '@nats-io/nats-core';
import { JetStreamApiError } from '@nats-io/jetstream';

/** JetStream's answer while its meta group has no leader or a node is still catching up with it. */
const TEMPORARILY_UNAVAILABLE = 10008;

/**
 * True for a failure a cluster gets over by itself within seconds: a JetStream request that got no answer in time,
 * or "JetStream system temporarily unavailable" (10008, a node that has just restarted or rejoined after a partition
 * and is not yet current with the meta leader). Looks through `cause` chains, since the bus wraps its errors. No
 * responder at all means the server runs without JetStream: a configuration error, reported at once.
 */
export function isTransientJetStreamError(e: unknown): boolean {
  for (let err: unknown = e, depth = 0; err instanceof Error && depth < 8; err = err.cause, depth++) {
    if (err instanceof TimeoutError) return true;
    if (err instanceof JetStreamApiError && (err.code === TEMPORARILY_UNAVAILABLE || err.status === 503)) return true;
  }
  return false;
}

export interface PatienceOptions {
  /** How long to keep trying transient failures, from the first attempt (default 60 s). */
  readonly deadlineMs?: number;
  /** Waits between attempts; tests pass a fake. */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly now?: () => number;
}

/**
 * Runs `provision` again while it fails transiently, pausing 250 ms and doubling to 2 s, until `deadlineMs` has
 * passed; any other failure, or a transient one past the deadline, is thrown as it is. On a cluster, creating a
 * replicated stream waits for its Raft group to elect a leader, services starting together all ask at once, and a
 * service restarted just after a partition healed meets nodes that answer 10008 until they have caught up: a
 * restart must ride through all of these rather than exit.
 */
export async function provisionPatiently<T>(provision: () => Promise<T>, options: PatienceOptions = {}): Promise<T> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const deadline = now() + (options.deadlineMs ?? 60_000);
  for (let pause = 250; ; pause = Math.min(pause * 2, 2000)) {
    try {
      return await provision();
    } catch (e) {
      if (!isTransientJetStreamError(e) || now() + pause > deadline) throw e;
    }
    await sleep(pause);
  }
}
