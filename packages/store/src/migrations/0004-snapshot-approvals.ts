import { sql, type Kysely } from 'kysely';

/**
 * Operator overrides of the safety hold (`portolan approve`): a held snapshot with an approval row is applied;
 * the approval names who and why, for the audit trail.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('snapshot_approvals')
    .addColumn('appliance', 'text', (c) => c.notNull())
    .addColumn('snapshot_id', 'bigint', (c) => c.notNull().references('snapshots.id'))
    .addColumn('approved_by', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('snapshot_approvals_pk', ['appliance', 'snapshot_id'])
    .execute();
}
