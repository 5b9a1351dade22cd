import { relistRequestSubject, type NatsEventBus } from '@portolan/bus';
import type { Logger } from '@portolan/telemetry';
import type { ClusterWatcher } from './cluster-watcher.ts';

/** Follows the planner's relist requests for `cluster` until the returned function is called. */
export function listenForRelistRequests(
  bus: NatsEventBus,
  cluster: string,
  watcher: ClusterWatcher,
  logger: Logger,
): () => void {
  return bus.listen(relistRequestSubject(cluster), (data) => relistOnRequest(watcher, data, logger));
}

/**
 * A planner's request (`{"kinds": [...]}`) to list kinds again and republish them: its state of those kinds differs
 * from this watcher's ledger while both were settled, so a message was lost on the way. A garbled request is logged
 * and dropped; the planner asks again if the difference stays.
 */
function relistOnRequest(watcher: ClusterWatcher, data: Uint8Array, logger: Logger): void {
  let kinds: unknown;
  try {
    kinds = (JSON.parse(new TextDecoder().decode(data)) as { kinds?: unknown }).kinds;
  } catch (e) {
    logger.warn({ err: (e as Error).message }, 'relist request ignored: not JSON');
    return;
  }
  if (!Array.isArray(kinds) || !kinds.every((k) => typeof k === 'string')) {
    logger.warn('relist request ignored: no list of kinds');
    return;
  }
  const relisted = watcher.relistForMismatch(kinds);
  logger.warn({ kinds: relisted }, 'the planner found a lost message: relisting and republishing');
}
