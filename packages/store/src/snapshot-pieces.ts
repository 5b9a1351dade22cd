// Reading a snapshot's content-addressed pieces from Postgres, for every reader of snapshots (the applier's
// incremental source, the audit's commands): one query per trie level, each piece verified by the reader.
import type { DesiredState } from '@portolan/desired-state';
import { SnapshotPieceMissingError, SnapshotReader } from '@portolan/snapshot';
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.ts';

/** Pieces by id. One array parameter, not one per id: a level of a 10k-Service snapshot holds more pieces than the
 * 65,535 bind parameters Postgres accepts in one statement. */
export async function readSnapshotPieces(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<{ hash: string; body: Buffer }[]> {
  return db
    .selectFrom('snapshot_pieces')
    .select(['hash', 'body'])
    .where(sql<boolean>`hash = any(${ids}::text[])`)
    .execute();
}

/**
 * Fetches every piece under `root`, level by level, into `fetched`. Each piece is verified against its id and
 * parsed once by `reader.admit` (a corrupt piece throws SnapshotCorruptError naming it); returns the pieces read.
 */
export async function prefetchSnapshot(
  db: Kysely<Database>,
  reader: SnapshotReader,
  root: string,
  fetched: Map<string, Uint8Array>,
): Promise<number> {
  let read = 0;
  for (let level = [root]; level.length > 0;) {
    const rows = await readSnapshotPieces(db, level);
    read += rows.length;
    const next = new Set<string>();
    for (const r of rows) {
      const body = new Uint8Array(r.body);
      fetched.set(r.hash, body);
      for (const ref of reader.admit(r.hash, body)) if (!fetched.has(ref)) next.add(ref);
    }
    const absent = level.find((id) => !fetched.has(id));
    if (absent !== undefined) throw new SnapshotPieceMissingError(absent);
    level = [...next];
  }
  return read;
}

/** The desired state of the snapshot whose root piece is `root`, read whole (for one-off reads: audit commands). */
export async function readSnapshotDesired(db: Kysely<Database>, root: string): Promise<DesiredState> {
  const reader = new SnapshotReader();
  const fetched = new Map<string, Uint8Array>();
  await prefetchSnapshot(db, reader, root, fetched);
  return reader.read(root, (id) => fetched.get(id));
}
