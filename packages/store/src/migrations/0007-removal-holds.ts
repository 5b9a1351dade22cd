import { sql, type Kysely } from 'kysely';

/**
 * The safety rule's holds, as the planner records them: one row per held removal (an object a relist no longer
 * lists, kept planned while the removal is judged suspicious), closed when an approval, Kubernetes or a later relist
 * ends it. The holds themselves are part of planning (replaying the archive rebuilds them); this table is their
 * record for `portolan status`, `portolan history`, Events and metrics. Written in the planner's commit transaction.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('removal_holds')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('cluster', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('object_key', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('held_at', 'timestamptz', (c) => c.notNull())
    .addColumn('held_seq', 'bigint', (c) => c.notNull())
    .addColumn('released_at', 'timestamptz')
    .addColumn('released_seq', 'bigint')
    .addColumn('released_by', 'text')
    .addColumn('release_reason', 'text')
    .addColumn('removed', 'boolean')
    .addUniqueConstraint('removal_holds_once', ['cluster', 'kind', 'object_key', 'held_seq'])
    .execute();
  await sql`CREATE INDEX removal_holds_open ON removal_holds (cluster) WHERE released_seq IS NULL`.execute(db);
}
