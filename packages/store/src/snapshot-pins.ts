import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

/** An operator's rollback pin (`portolan rollback`): while it exists the planner holds the appliance's new snapshots. */
export interface SnapshotPin {
  readonly appliance: string;
  /** The snapshot the appliance was rolled back to. */
  readonly snapshotId: string;
  readonly reason: string | null;
  readonly createdAt: Date;
  /** Who set it (null on pins set before identities were recorded). */
  readonly actor: string | null;
}

/** The hold reason the planner records on snapshots it makes while an appliance is pinned. */
export function pinHoldReason(pin: Pick<SnapshotPin, 'snapshotId'>): string {
  return `pinned by rollback to snapshot ${pin.snapshotId}`;
}

/** The appliance's pin, or null when its planning is not pinned. */
export async function readPin(db: Kysely<Database>, appliance: string): Promise<SnapshotPin | null> {
  const row = await db.selectFrom('snapshot_pins').selectAll().where('appliance', '=', appliance).executeTakeFirst();
  return row === undefined
    ? null
    : {
        appliance: row.appliance,
        snapshotId: String(row.snapshot_id),
        reason: row.reason,
        createdAt: new Date(row.created_at),
        actor: row.actor,
      };
}

/** True while the appliance is pinned by a rollback (`portolan resume` removes the pin). */
export async function isPinned(db: Kysely<Database>, appliance: string): Promise<boolean> {
  return (await readPin(db, appliance)) !== null;
}

/** Every pin by appliance: the planner reads these once per batch (its hold decision is synchronous). */
export async function readPins(db: Kysely<Database>): Promise<Map<string, SnapshotPin>> {
  const rows = await db.selectFrom('snapshot_pins').selectAll().execute();
  return new Map(
    rows.map((r) => [
      r.appliance,
      {
        appliance: r.appliance,
        snapshotId: String(r.snapshot_id),
        reason: r.reason,
        createdAt: new Date(r.created_at),
        actor: r.actor,
      },
    ]),
  );
}
