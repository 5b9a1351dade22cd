import { sql, type Kysely } from 'kysely';

/** Creates the event archive, snapshots, positions, epochs, applies and drift tables. */
// eslint-disable-next-line max-lines-per-function -- a migration is one DDL script, read top to bottom in order
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('events')
    .addColumn('seq', 'bigint', (c) => c.primaryKey())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('msg_id', 'text', (c) => c.notNull())
    .addColumn('cluster', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('object_key', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('payload', 'bytea', (c) => c.notNull())
    .addColumn('received_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('trace_id', 'text')
    .execute();
  await db.schema
    .createIndex('events_object_idx')
    .on('events')
    .columns(['cluster', 'kind', 'object_key', 'seq'])
    .execute();
  await db.schema.createIndex('events_received_idx').on('events').column('received_at').execute();

  await db.schema
    .createTable('snapshot_pieces')
    .addColumn('hash', 'text', (c) => c.primaryKey())
    .addColumn('body', 'bytea', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('snapshots')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('appliance', 'text', (c) => c.notNull())
    .addColumn('content_hash', 'text', (c) => c.notNull())
    .addColumn('root_hash', 'text', (c) => c.notNull().references('snapshot_pieces.hash'))
    .addColumn('parent_id', 'bigint', (c) => c.references('snapshots.id'))
    .addColumn('last_event_seq', 'bigint', (c) => c.notNull())
    .addColumn('fleet_config_hash', 'text', (c) => c.notNull())
    .addColumn('planner_version', 'text', (c) => c.notNull())
    .addColumn('held', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('hold_reason', 'text')
    .addColumn('origin', 'text', (c) => c.notNull().defaultTo('plan'))
    .addColumn('reason', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('trace_id', 'text')
    .execute();
  // A linear chain per appliance: one child per parent, and one root.
  await db.schema
    .createIndex('snapshots_linear_idx')
    .on('snapshots')
    .columns(['appliance', 'parent_id'])
    .unique()
    .execute();
  await sql`CREATE UNIQUE INDEX snapshots_single_root_idx ON snapshots (appliance) WHERE parent_id IS NULL`.execute(db);
  await db.schema.createIndex('snapshots_time_idx').on('snapshots').columns(['appliance', 'created_at']).execute();
  await db.schema.createIndex('snapshots_hash_idx').on('snapshots').columns(['appliance', 'content_hash']).execute();

  await db.schema
    .createTable('snapshot_heads')
    .addColumn('appliance', 'text', (c) => c.primaryKey())
    .addColumn('snapshot_id', 'bigint', (c) => c.notNull().references('snapshots.id'))
    .addColumn('content_hash', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('consumer_positions')
    .addColumn('consumer', 'text', (c) => c.primaryKey())
    .addColumn('stream_seq', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('fleet_configs')
    .addColumn('hash', 'text', (c) => c.primaryKey())
    .addColumn('body', 'jsonb', (c) => c.notNull())
    .addColumn('first_seen_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('leader_epochs')
    .addColumn('group_name', 'text', (c) => c.primaryKey())
    .addColumn('epoch', 'bigint', (c) => c.notNull())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('acquired_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createTable('leader_epoch_history')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('group_name', 'text', (c) => c.notNull())
    .addColumn('epoch', 'bigint', (c) => c.notNull())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('acquired_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('leader_epoch_history_unique', ['group_name', 'epoch'])
    .execute();

  await db.schema
    .createTable('applies')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('appliance', 'text', (c) => c.notNull())
    .addColumn('snapshot_id', 'bigint', (c) => c.notNull().references('snapshots.id'))
    .addColumn('epoch', 'bigint', (c) => c.notNull())
    .addColumn('leader_id', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('operations', 'jsonb', (c) => c.notNull())
    .addColumn('results', 'jsonb', (c) => c.notNull())
    .addColumn('observed_after_hash', 'text')
    .addColumn('reason', 'text')
    .addColumn('started_at', 'timestamptz', (c) => c.notNull())
    .addColumn('finished_at', 'timestamptz', (c) => c.notNull())
    .addColumn('trace_id', 'text')
    .execute();
  await db.schema.createIndex('applies_time_idx').on('applies').columns(['appliance', 'finished_at']).execute();

  await db.schema
    .createTable('drift_observations')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('appliance', 'text', (c) => c.notNull())
    .addColumn('snapshot_id', 'bigint')
    .addColumn('objects', 'jsonb', (c) => c.notNull())
    .addColumn('before', 'jsonb', (c) => c.notNull())
    .addColumn('after', 'jsonb', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('observed_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}
