import { errorMessage } from '@portolan/errors';
import { sql, type Kysely, type RawBuilder } from '@portolan/store';
import type { Database } from '@portolan/store';
import { EpochStoreError, StaleEpochError } from '../errors.ts';

/** The epoch granted on an acquisition, and what the previous grant of the group was. */
export interface EpochGrant {
  readonly epoch: number;
  readonly previous: { readonly epoch: number; readonly holder: string; readonly redisRunId: string | null } | null;
}

/** The latest epoch of a group. */
export interface CurrentEpoch {
  readonly epoch: number;
  readonly holder: string;
  readonly acquiredAt: Date;
  readonly redisRunId: string | null;
}

/**
 * The query a record's own statement embeds to hold its term's fence: the group's epoch row, locked FOR SHARE, so a
 * concurrent grant waits until the record is committed (the statement compares the epoch it returns with its own).
 */
export function epochRowForShare(group: string): RawBuilder<{ epoch: string }> {
  return sql<{ epoch: string }>`SELECT epoch FROM leader_epochs WHERE group_name = ${group} FOR SHARE`;
}

/**
 * Fencing epochs in Postgres (docs/architecture.md, "Leadership and fencing"). `grant` increments the group's epoch and appends to the history;
 * `assertCurrent` inside the caller's transaction takes a share lock on the group's row (alone, it is a plain read), so a record
 * either commits before the next epoch is granted or is refused.
 */
export class PgEpochStore {
  readonly db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  /** Takes the next epoch for `group`: `UPDATE … SET epoch = epoch + 1 RETURNING`, plus a history row. */
  async grant(
    group: string,
    holder: string,
    redisRunId: string,
    actingDelayFor: (previousRunId: string | null) => number,
  ): Promise<EpochGrant & { actingDelayMs: number }> {
    try {
      return await this.db.transaction().execute(async (trx) => {
        const before = await trx
          .selectFrom('leader_epochs')
          .select(['epoch', 'holder', 'redis_run_id'])
          .where('group_name', '=', group)
          .forUpdate()
          .executeTakeFirst();
        const row =
          before === undefined
            ? await trx
                .insertInto('leader_epochs')
                .values({ group_name: group, epoch: 1, holder, redis_run_id: redisRunId })
                .returning('epoch')
                .executeTakeFirstOrThrow()
            : await trx
                .updateTable('leader_epochs')
                .set({ epoch: sql`epoch + 1`, holder, redis_run_id: redisRunId, acquired_at: sql`now()` })
                .where('group_name', '=', group)
                .returning('epoch')
                .executeTakeFirstOrThrow();
        const previous =
          before === undefined
            ? null
            : { epoch: Number(before.epoch), holder: before.holder, redisRunId: before.redis_run_id };
        const actingDelayMs = actingDelayFor(previous?.redisRunId ?? null);
        await trx
          .insertInto('leader_epoch_history')
          .values({
            group_name: group,
            epoch: row.epoch,
            holder,
            redis_run_id: redisRunId,
            acting_delay_ms: actingDelayMs,
          })
          .execute();
        return { epoch: Number(row.epoch), previous, actingDelayMs };
      });
    } catch (cause) {
      throw new EpochStoreError(`cannot grant an epoch for group "${group}": ${errorMessage(cause)}`, { cause });
    }
  }

  /**
   * Throws StaleEpochError unless `epoch` is still the group's latest. Pass the transaction that writes the
   * record: the FOR SHARE lock makes a concurrent grant wait until that record is committed.
   */
  async assertCurrent(group: string, epoch: number, executor?: Kysely<Database>): Promise<void> {
    let latest: number | null;
    try {
      // The share lock matters only inside the caller's transaction (it holds until the record commits). Alone, a
      // plain read: a locking read in its own transaction writes a row lock and so waits for a WAL flush.
      const row =
        executor === undefined
          ? await this.db.selectFrom('leader_epochs').select('epoch').where('group_name', '=', group).executeTakeFirst()
          : (await epochRowForShare(group).execute(executor)).rows[0];
      latest = row === undefined ? null : Number(row.epoch);
    } catch (cause) {
      throw new EpochStoreError(`cannot check the epoch of group "${group}": ${errorMessage(cause)}`, { cause });
    }
    if (latest !== epoch) throw new StaleEpochError(group, epoch, latest);
  }

  /** The latest epoch of a group, or null when it never had a leader. */
  async current(group: string): Promise<CurrentEpoch | null> {
    let row;
    try {
      row = await this.db.selectFrom('leader_epochs').selectAll().where('group_name', '=', group).executeTakeFirst();
    } catch (cause) {
      throw new EpochStoreError(`cannot read the epoch of group "${group}": ${errorMessage(cause)}`, { cause });
    }
    return row === undefined
      ? null
      : {
          epoch: Number(row.epoch),
          holder: row.holder,
          acquiredAt: new Date(row.acquired_at),
          redisRunId: row.redis_run_id,
        };
  }
}
