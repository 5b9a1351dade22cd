import { sql, type Kysely } from 'kysely';

/**
 * Rollback pins (`portolan rollback`): while an appliance has a pin, the planner marks its new snapshots held
 * ("pinned by rollback to <id>"), so the rollback target stays applied until `portolan resume` removes the pin.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('snapshot_pins')
    .addColumn('appliance', 'text', (c) => c.primaryKey())
    .addColumn('snapshot_id', 'bigint', (c) => c.notNull().references('snapshots.id'))
    .addColumn('reason', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}
