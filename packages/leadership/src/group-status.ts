import type { PgEpochStore } from './adapters/pg-epoch-store.ts';
import type { RedisLeaseClient } from './adapters/redis-lease-client.ts';
import { leaseKey, parseLeaseValue } from './core/lease-value.ts';

/** What `portolan leader status` shows for one group. */
export interface GroupStatus {
  readonly group: string;
  /** Replica id holding the lease now, or null when nobody does. */
  readonly holder: string | null;
  readonly remainingTtlMs: number | null;
  /** Latest epoch granted (Postgres), with the holder it was granted to. */
  readonly epoch: number | null;
  readonly epochHolder: string | null;
}

/** Reads the lease (Redis) and the latest epoch (Postgres) of each group. */
export async function groupStatuses(
  groups: readonly string[],
  lease: RedisLeaseClient,
  epochs: PgEpochStore,
  keyPrefix = 'portolan:',
): Promise<GroupStatus[]> {
  return Promise.all(
    groups.map(async (group) => {
      const [held, current] = await Promise.all([lease.inspect(leaseKey(keyPrefix, group)), epochs.current(group)]);
      return {
        group,
        holder: held === null ? null : parseLeaseValue(held.value).holder,
        remainingTtlMs: held?.remainingMs ?? null,
        epoch: current?.epoch ?? null,
        epochHolder: current?.holder ?? null,
      };
    }),
  );
}
