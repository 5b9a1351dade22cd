import type { DesiredState } from '@portolan/desired-state';
import { splitSnapshot } from '@portolan/snapshot';
import type { Database, Kysely } from '@portolan/store';

/**
 * Writes snapshots the way the planner's shell does (test helper): the planner's content-addressed pieces
 * (`splitSnapshot`), a `snapshots` row chained to the previous one, and the head moved by compare-and-set.
 * Returns the new snapshot id.
 */
export async function writeSnapshot(
  db: Kysely<Database>,
  desired: DesiredState,
  options: { held?: boolean; holdReason?: string } = {},
): Promise<string> {
  const { root, pieces } = splitSnapshot(desired);
  return db.transaction().execute(async (trx) => {
    const rows = [...pieces].map(([hash, body]) => ({ hash, body: Buffer.from(body) }));
    for (let i = 0; i < rows.length; i += 500) {
      await trx
        .insertInto('snapshot_pieces')
        .values(rows.slice(i, i + 500))
        .onConflict((oc) => oc.column('hash').doNothing())
        .execute();
    }
    const head = await trx
      .selectFrom('snapshot_heads')
      .select('snapshot_id')
      .where('appliance', '=', desired.appliance)
      .forUpdate()
      .executeTakeFirst();
    const row = await trx
      .insertInto('snapshots')
      .values({
        appliance: desired.appliance,
        content_hash: root,
        root_hash: root,
        parent_id: head?.snapshot_id ?? null,
        last_event_seq: 0,
        fleet_config_hash: 'test',
        planner_version: 'test',
        held: options.held ?? false,
        hold_reason: options.holdReason ?? null,
        origin: 'plan',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (head === undefined)
      await trx
        .insertInto('snapshot_heads')
        .values({ appliance: desired.appliance, snapshot_id: row.id, content_hash: root })
        .execute();
    else
      await trx
        .updateTable('snapshot_heads')
        .set({ snapshot_id: row.id, content_hash: root, updated_at: new Date() })
        .where('appliance', '=', desired.appliance)
        .where('snapshot_id', '=', head.snapshot_id)
        .execute();
    return String(row.id);
  });
}
