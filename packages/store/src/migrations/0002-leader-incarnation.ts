import type { Kysely } from 'kysely';

/**
 * Records which Redis incarnation (INFO `run_id`) granted each lease, and how long a new leader waited before
 * acting. A lease granted by a different incarnation than the previous holder's may overlap a holder that
 * Redis forgot (restart without persistence, failover): the new leader then waits one TTL, so two leaders never act at once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('leader_epochs').addColumn('redis_run_id', 'text').execute();
  await db.schema.alterTable('leader_epoch_history').addColumn('redis_run_id', 'text').execute();
  await db.schema
    .alterTable('leader_epoch_history')
    .addColumn('acting_delay_ms', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
