import { decodeValueTree, treeReferences } from '@portolan/desired-state';
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.ts';
import { StoredDataMissingError } from './errors.ts';

/**
 * Reads a value stored as a value tree (`ValueTreeEncoder`: apply read-backs) from `snapshot_pieces`, fetching
 * its pieces level by level in one query per level. A plain JSON piece (older records) reads as itself; null when
 * the root piece is absent.
 */
export async function readValueTree(db: Kysely<Database>, root: string): Promise<unknown> {
  const texts = new Map<string, string>();
  for (let level = [root]; level.length > 0;) {
    const rows = await db
      .selectFrom('snapshot_pieces')
      .select(['hash', 'body'])
      .where(sql<boolean>`hash = any(${level}::text[])`)
      .execute();
    const next = new Set<string>();
    for (const r of rows) {
      const text = Buffer.from(r.body).toString('utf8');
      texts.set(r.hash, text);
      for (const ref of treeReferences(text)) if (!texts.has(ref)) next.add(ref);
    }
    level = [...next];
  }
  const top = texts.get(root);
  return top === undefined ? null : decodeValueTree(top, (id) => texts.get(id));
}

/**
 * The operations an `applies` row records, payloads included: from their value tree (`operations_hash`, migration
 * 0006) or, in older rows, from the row itself. A tree missing from `snapshot_pieces` is an error naming the apply.
 */
export async function readApplyOperations(
  db: Kysely<Database>,
  row: { readonly id: string | number; readonly operations: unknown; readonly operations_hash: string | null },
): Promise<unknown[]> {
  if (row.operations_hash === null) return Array.isArray(row.operations) ? row.operations : [];
  const operations = await readValueTree(db, row.operations_hash);
  if (operations === null)
    throw new StoredDataMissingError(
      `apply ${String(row.id)}: its operations (value tree ${row.operations_hash}) are missing from snapshot_pieces`,
    );
  return Array.isArray(operations) ? operations : [];
}
