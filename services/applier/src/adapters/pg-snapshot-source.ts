import type { DesiredState } from '@portolan/desired-state';
import { sql, type Database, type Kysely } from '@portolan/store';
import type { SnapshotHeader } from '../core/apply-target.ts';
import { joinSnapshot, pieceReferences, type PieceLookup } from '@portolan/planner';
import { SnapshotLoadError } from '../errors.ts';

/** A decoded snapshot. */
export interface LoadedSnapshot extends SnapshotHeader {
  readonly desired: DesiredState;
  readonly createdAt: Date;
  /** 'plan' for planner output, 'rollback' for an operator's rollback target. */
  readonly origin: string;
  /** The operator's reason, for rollback snapshots. */
  readonly reason?: string | null;
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

/** Reassembles a desired state from a root piece id and a piece lookup (the planner's `joinSnapshot`). */
export type SnapshotDecoder = (root: string, getPiece: PieceLookup) => DesiredState;

/**
 * Reads heads, snapshot rows and the planner's content-addressed pieces. Pieces are prefetched level by level
 * (`pieceReferences`, one query per trie level) and cached by address; the cache keeps only the pieces of the
 * last decoded snapshot, so a one-endpoint change fetches the changed pool's pieces and the path to the root.
 */
export class PgSnapshotSource implements SnapshotSource {
  private readonly db: Kysely<Database>;
  private readonly decode: SnapshotDecoder;
  private cache = new Map<string, Uint8Array>();
  /** Pieces read from Postgres so far (a one-endpoint change should cost a handful). */
  fetchedPieces = 0;

  constructor(db: Kysely<Database>, decode: SnapshotDecoder = joinSnapshot) {
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
    if (row === undefined) return null;
    const header = { id: String(row.id), hash: row.content_hash, held: row.held, holdReason: row.hold_reason };
    if (!row.held) return header;
    const unheld = await this.db.selectFrom('snapshots').select('id').where('appliance', '=', appliance).where('held', '=', false).orderBy('id', 'desc').limit(1).executeTakeFirst();
    return { ...header, newestUnheldId: unheld === undefined ? null : String(unheld.id) };
  }

  async get(id: string): Promise<LoadedSnapshot> {
    const row = await this.db.selectFrom('snapshots').select(['id', 'content_hash', 'root_hash', 'held', 'hold_reason', 'created_at', 'origin', 'reason']).where('id', '=', id).executeTakeFirst();
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
    return { id: String(row.id), hash: row.content_hash, held: row.held, holdReason: row.hold_reason, desired, createdAt: new Date(row.created_at), origin: row.origin, reason: row.reason };
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
      // One array parameter, not one parameter per id: a level of a 10k-Service snapshot holds more pieces than the
      // 65,535 bind parameters Postgres accepts in one statement.
      const fetched = missing.length === 0 ? [] : await this.db.selectFrom('snapshot_pieces').select(['hash', 'body']).where(sql<boolean>`hash = any(${missing}::text[])`).execute();
      this.fetchedPieces += fetched.length;
      for (const f of fetched) this.cache.set(f.hash, new Uint8Array(f.body));
      const next = new Set<string>();
      for (const pid of frontier) {
        const body = this.cache.get(pid);
        if (body === undefined) continue;
        used.set(pid, body);
        let refs: string[];
        try {
          refs = pieceReferences(Buffer.from(body).toString('utf8'));
        } catch {
          continue; // joinSnapshot reports the corrupt piece with its id
        }
        for (const ref of refs) if (!asked.has(ref)) next.add(ref);
      }
      frontier = next;
    }
  }
}
