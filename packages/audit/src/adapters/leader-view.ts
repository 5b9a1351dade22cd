import { errorMessage } from '@portolan/errors';
import { groupStatuses, LeaseStoreError, PgEpochStore, RedisLeaseClient, type GroupStatus } from '@portolan/leadership';
import type { Database, Kysely } from '@portolan/store';

/** Leader state per group, or why Redis could not be asked (epochs still come from Postgres). */
export type LeaderView =
  | { readonly ok: true; readonly groups: ReadonlyMap<string, GroupStatus> }
  | {
      readonly ok: false;
      readonly message: string;
      readonly epochs: ReadonlyMap<string, { epoch: number; holder: string }>;
    };

/** The lease holder (Redis) and fencing epoch (Postgres) of each group, through @portolan/leadership's status helper. */
export async function readLeaders(
  redisUrl: string,
  db: Kysely<Database>,
  groups: readonly string[],
): Promise<LeaderView> {
  const lease = new RedisLeaseClient(redisUrl, { commandTimeoutMs: 2000, name: 'portolan-status' });
  try {
    await lease.ready(3000);
    const rows = await groupStatuses(groups, lease, new PgEpochStore(db));
    return { ok: true, groups: new Map(rows.map((r) => [r.group, r])) };
  } catch (e) {
    // Redis down is reported beside the epochs Postgres still has; a Postgres failure propagates.
    if (!(e instanceof LeaseStoreError)) throw e;
    const epochs = new Map<string, { epoch: number; holder: string }>();
    for (const g of groups) {
      const c = await new PgEpochStore(db).current(g);
      if (c !== null) epochs.set(g, { epoch: c.epoch, holder: c.holder });
    }
    return { ok: false, message: `Redis at ${redisUrl}: ${errorMessage(e)}`, epochs };
  } finally {
    lease.close();
  }
}
