import { sql, type Kysely, type Database } from '@portolan/store';

/**
 * The hold reason for an appliance an operator pinned with `portolan rollback`, or null. Reads the
 * `snapshot_pins` table when it exists (the audit package's migration adds it).
 */
export async function pinReason(db: Kysely<Database>, appliance: string): Promise<string | null> {
  try {
    const r = await sql<{ snapshot_id: string }>`SELECT snapshot_id FROM snapshot_pins WHERE appliance = ${appliance}`.execute(db);
    const row = r.rows[0];
    return row === undefined ? null : `pinned by rollback to snapshot ${row.snapshot_id}`;
  } catch (e) {
    if ((e as { code?: string }).code === '42P01') return null;
    throw e;
  }
}
