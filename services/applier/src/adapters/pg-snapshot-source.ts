import type { DesiredState } from '@portolan/desired-state';
import type { Database, Kysely } from '@portolan/store';
import type { SnapshotHeader } from '../core/apply-target.ts';
import { referencedPieceIds } from '../core/snapshot-pieces.ts';
import { SnapshotLoadError } from '../errors.ts';

/** A decoded snapshot. */
export interface LoadedSnapshot extends SnapshotHeader {
  readonly desired: DesiredState;
  readonly createdAt: Date;
}

/** Where the applier reads snapshots from (Postgres in production; the planner writes them). */
export interface SnapshotSource {
  /** The appliance's head snapshot, or null before the first plan. */
  head(appliance: string): Promise<SnapshotHeader | null>;
  /** One snapshot, decoded. */
  get(id: string): Promise<LoadedSnapshot>;
  /** Creation time of the oldest snapshot newer than `afterId` that is not held (null: none). */
  oldestUnappliedAt(appliance: string, afterId: string | null): Promise<Date | null>;
}

/** Looks a piece up by content address; undefined when absent. */
export type PieceLookup = (id: string) => Uint8Array | string | undefined;

/** Reassembles a desired state from a root piece id (the planner's `joinSnapshot`). */
export type SnapshotDecoder = (root: string, getPiece: PieceLookup) => DesiredState;

const text = (raw: Uint8Array | string): string => (typeof raw === 'string' ? raw : Buffer.from(raw).toString('utf8'));

/** Decodes a root piece that holds the whole desired state as one document (no `layout` field). */
export function wholeDocumentDecoder(root: string, getPiece: PieceLookup): DesiredState {
  const raw = getPiece(root);
  if (raw === undefined) throw new SnapshotLoadError(`snapshot piece ${root} is missing`);
  const value = JSON.parse(text(raw)) as DesiredState;
  if (typeof value.appliance !== 'string' || !Array.isArray(value.virtualServices)) throw new SnapshotLoadError(`snapshot piece ${root} is not a desired state`);
  return value;
}

/**
 * The decoder for what the planner writes: its `joinSnapshot` (loaded by package name, so the applier builds
 * before the planner lands) for layered roots, the whole-document form otherwise.
 */
export async function loadSnapshotDecoder(): Promise<SnapshotDecoder> {
  let join: SnapshotDecoder | null = null;
  try {
    const name = '@portolan/planner';
    const mod = (await import(name)) as { joinSnapshot?: SnapshotDecoder };
    join = typeof mod.joinSnapshot === 'function' ? mod.joinSnapshot : null;
  } catch {
    join = null;
  }
  return (root, getPiece) => {
    const raw = getPiece(root);
    if (raw === undefined) throw new SnapshotLoadError(`snapshot piece ${root} is missing`);
    const top = JSON.parse(text(raw)) as Record<string, unknown>;
    if (top['layout'] === undefined) return wholeDocumentDecoder(root, getPiece);
    if (join === null) throw new SnapshotLoadError(`snapshot ${root} has layout ${String(top['layout'])} but @portolan/planner (joinSnapshot) is not installed`);
    return join(root, getPiece);
  };
}

/**
 * Reads heads, snapshot rows and content-addressed pieces. Pieces are prefetched breadth-first (a few queries
 * per snapshot) and cached by address; the cache keeps only the pieces of the last decoded snapshot, so a
 * one-endpoint change fetches one new pool piece and the root.
 */
export class PgSnapshotSource implements SnapshotSource {
  private readonly db: Kysely<Database>;
  private readonly decode: SnapshotDecoder;
  private cache = new Map<string, Uint8Array>();

  constructor(db: Kysely<Database>, decode: SnapshotDecoder) {
    this.db = db;
    this.decode = decode;
  }

  async head(appliance: string): Promise<SnapshotHeader | null> {
    const row = await this.db
      .selectFrom('snapshot_heads as h')
      .innerJoin('snapshots as s', 's.id', 'h.snapshot_id')
      .select(['s.id', 's.content_hash', 's.held', 's.hold_reason'])
      .where('h.appliance', '=', appliance)
      .executeTakeFirst();
    return row === undefined ? null : { id: String(row.id), hash: row.content_hash, held: row.held, holdReason: row.hold_reason };
  }

  async get(id: string): Promise<LoadedSnapshot> {
    const row = await this.db.selectFrom('snapshots').select(['id', 'content_hash', 'root_hash', 'held', 'hold_reason', 'created_at']).where('id', '=', id).executeTakeFirst();
    if (row === undefined) throw new SnapshotLoadError(`snapshot ${id} does not exist`);
    const used = new Map<string, Uint8Array>();
    await this.prefetch(row.root_hash, used);
    const lookup: PieceLookup = (pieceId) => used.get(pieceId);
    let desired: DesiredState;
    try {
      desired = this.decode(row.root_hash, lookup);
    } catch (cause) {
      throw cause instanceof SnapshotLoadError ? cause : new SnapshotLoadError(`snapshot ${id} cannot be decoded: ${(cause as Error).message}`, { cause });
    }
    this.cache = used;
    return { id: String(row.id), hash: row.content_hash, held: row.held, holdReason: row.hold_reason, desired, createdAt: new Date(row.created_at) };
  }

  async oldestUnappliedAt(appliance: string, afterId: string | null): Promise<Date | null> {
    let q = this.db.selectFrom('snapshots').select((eb) => eb.fn.min('created_at').as('oldest')).where('appliance', '=', appliance).where('held', '=', false);
    if (afterId !== null) q = q.where('id', '>', afterId);
    const row = await q.executeTakeFirst();
    return row?.oldest === null || row?.oldest === undefined ? null : new Date(row.oldest as Date);
  }

  private async prefetch(root: string, used: Map<string, Uint8Array>): Promise<void> {
    let frontier = new Set([root]);
    const asked = new Set<string>();
    while (frontier.size > 0) {
      const missing = [...frontier].filter((pid) => !this.cache.has(pid));
      for (const pid of frontier) asked.add(pid);
      const fetched = missing.length === 0 ? [] : await this.db.selectFrom('snapshot_pieces').select(['hash', 'body']).where('hash', 'in', missing).execute();
      for (const f of fetched) this.cache.set(f.hash, new Uint8Array(f.body));
      const next = new Set<string>();
      for (const pid of frontier) {
        const body = this.cache.get(pid);
        if (body === undefined) continue;
        used.set(pid, body);
        let parsed: unknown;
        try {
          parsed = JSON.parse(text(body));
        } catch {
          continue;
        }
        for (const ref of referencedPieceIds(parsed)) if (!asked.has(ref)) next.add(ref);
      }
      frontier = next;
    }
  }
}
