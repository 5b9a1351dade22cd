import { PortolanError } from '@portolan/errors';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from './schema.ts';

/** A snapshot to append to an appliance's chain: its pieces are content-addressed and shared. */
export interface NewSnapshot {
  readonly appliance: string;
  readonly contentHash: string;
  readonly rootHash: string;
  /** Pieces (root included) by hash; those already stored are not written again. */
  readonly pieces: ReadonlyMap<string, Uint8Array>;
  /** The head this snapshot extends (null for an appliance's first snapshot): the compare-and-set expectation. */
  readonly parentId: string | null;
  readonly lastEventSeq: number;
  readonly fleetConfigHash: string;
  readonly plannerVersion: string;
  readonly held: boolean;
  readonly holdReason: string | null;
  readonly origin?: 'plan' | 'rollback';
  readonly reason?: string | null;
  readonly traceId: string | null;
}

/** Another writer moved a head or the consumer position first: nothing of the write was kept. */
export class HeadMovedError extends PortolanError {
  readonly code = 'PLANNER_HEAD_MOVED';
}

/** Moves appliance heads: the one way a snapshot joins a chain, by compare-and-set on the head it extends. */
export interface SnapshotHeads {
  /** Appends `snapshot` on top of `snapshot.parentId`; throws HeadMovedError, having written nothing, when the head moved. */
  append(snapshot: NewSnapshot): Promise<string>;
}

/** SnapshotHeads in Postgres: the planner's commits and an operator's rollback and resume share these statements. */
export class PgSnapshotHeads implements SnapshotHeads {
  readonly db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  /** Appends in a transaction of its own (operator rollback, resume): same chain rules, no position change. */
  append(snapshot: NewSnapshot): Promise<string> {
    return this.db.transaction().execute((tx) => appendSnapshotIn(tx, snapshot));
  }
}

/**
 * Appends `s` inside the caller's transaction: its pieces (idempotent by hash), its row, and the head move. The
 * unique (appliance, parent_id) index and the compare-and-set on `snapshot_heads` keep each chain linear: a racing
 * append throws HeadMovedError and the caller's transaction rolls back.
 */
export async function appendSnapshotIn(tx: Transaction<Database>, s: NewSnapshot): Promise<string> {
  const pieces = [...s.pieces].map(([hash, body]) => ({ hash, body: asBuffer(body) }));
  for (let i = 0; i < pieces.length; i += 500) {
    await tx
      .insertInto('snapshot_pieces')
      .values(pieces.slice(i, i + 500))
      .onConflict((c) => c.column('hash').doNothing())
      .execute();
  }
  const inserted = await tx
    .insertInto('snapshots')
    .values(snapshotRow(s))
    .onConflict((c) => c.doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted === undefined)
    throw new HeadMovedError(`${s.appliance}: snapshot ${s.parentId ?? '(root)'} already has a child`);
  const id = inserted.id;
  if (s.parentId === null) {
    const r = await tx
      .insertInto('snapshot_heads')
      .values({ appliance: s.appliance, snapshot_id: id, content_hash: s.contentHash })
      .onConflict((c) => c.column('appliance').doNothing())
      .executeTakeFirst();
    if (r.numInsertedOrUpdatedRows !== 1n) throw new HeadMovedError(`${s.appliance}: head already exists`);
  } else {
    const r = await tx
      .updateTable('snapshot_heads')
      .set({ snapshot_id: id, content_hash: s.contentHash, updated_at: sql`now()` })
      .where('appliance', '=', s.appliance)
      .where('snapshot_id', '=', s.parentId)
      .executeTakeFirst();
    if (r.numUpdatedRows !== 1n) throw new HeadMovedError(`${s.appliance}: head moved away from ${s.parentId}`);
  }
  return id;
}

/** A new snapshot as its row (id and creation time are the database's). */
function snapshotRow(s: NewSnapshot) {
  return {
    appliance: s.appliance,
    content_hash: s.contentHash,
    root_hash: s.rootHash,
    parent_id: s.parentId,
    last_event_seq: s.lastEventSeq,
    fleet_config_hash: s.fleetConfigHash,
    planner_version: s.plannerVersion,
    held: s.held,
    hold_reason: s.holdReason,
    origin: s.origin ?? 'plan',
    reason: s.reason ?? null,
    trace_id: s.traceId,
  };
}

/** A Buffer over the same bytes (no copy): piece bytes are views into the encoder's arena. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
