import { sql, type Kysely } from 'kysely';

/**
 * Who changed what by hand, and why: one `operator_actions` row per approve, rollback and resume (CLI or console),
 * with the authenticated actor and the required reason; the snapshots or approval it involved. A rollback pin
 * also names its actor, so the pin shown while it lasts says who set it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('operator_actions')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull().check(sql`action in ('approve', 'rollback', 'resume')`))
    .addColumn('appliance', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('target_snapshot_id', 'bigint')
    .addColumn('result_snapshot_id', 'bigint')
    .addColumn('approval_seq', 'bigint')
    .execute();
  await db.schema
    .createIndex('operator_actions_time_idx')
    .on('operator_actions')
    .columns(['appliance', 'at'])
    .execute();
  await db.schema.alterTable('snapshot_pins').addColumn('actor', 'text').execute();
}
