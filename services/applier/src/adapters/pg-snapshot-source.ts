import type { DesiredState } from '@portolan/desired-state';
import { prefetchSnapshot, readSnapshotPieces, type Database, type Kysely } from '@portolan/store';
import type { SnapshotHeader } from '../core/apply-target.ts';
import { SnapshotPieceMissingError, SnapshotReader, type PieceLookup } from '@portolan/snapshot';
import { SnapshotLoadError } from '../errors.ts';
import type { AnnouncedSnapshot, LoadedSnapshot, SnapshotStore } from '../core/snapshot-store.ts';

export type { LoadedSnapshot };

type SnapshotRow = {
  id: string;
  content_hash: string;
  root_hash: string;
  held: boolean;
  hold_reason: string | null;
  created_at: Date;
  origin: string;
  reason: string | null;
  /** The trace headers of an announced head (rows read from Postgres have none). */
  trace_context?: Readonly<Record<string, string>> | null;
};

/** The applier's snapshot store, by the name this adapter has always exported. */
export type SnapshotSource = SnapshotStore;

/**
 * Reads heads, snapshot rows and the planner's content-addressed pieces. Snapshots are decoded by an incremental
 * `SnapshotReader`: a snapshot read after another fetches (in one query per trie level) and decodes only the pieces
 * that differ, so a one-endpoint change costs about ten pieces whatever the world's size, and unchanged pools and
 * virtual services keep their object identity (which lets renders and diffs skip them).
 */
export class PgSnapshotSource implements SnapshotSource {
  private readonly db: Kysely<Database>;
  private readonly reader = new SnapshotReader();
  /** Pieces announced on the bus, used before asking Postgres (bounded; dropped once a read has used them). */
  private offered = new Map<string, Uint8Array>();
  /** Snapshot rows seen by the last head queries, so `get` of the head needs no second query. */
  private readonly rows = new Map<string, SnapshotRow>();
  /** Pieces read from Postgres so far (a one-endpoint change should cost a handful). */
  fetchedPieces = 0;
  /** The newest head announced on the bus and not yet answered, and the newest head id answered so far. */
  private announced: SnapshotRow | null = null;
  private newestHeadId: bigint | null = null;
  /** Head queries sent to Postgres (announced heads spare them on the hot path). */
  headQueries = 0;

  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  offer(pieces: ReadonlyMap<string, Uint8Array>): void {
    if (this.offered.size > 4096) this.offered.clear();
    for (const [id, body] of pieces) this.offered.set(id, body);
  }

  offerHead(a: AnnouncedSnapshot): void {
    // A held snapshot's header needs the newest unheld id: those go through the query.
    if (a.held || (this.announced !== null && BigInt(this.announced.id) >= BigInt(a.id))) return;
    this.announced = {
      id: a.id,
      content_hash: a.hash,
      root_hash: a.hash,
      held: false,
      hold_reason: null,
      created_at: a.createdAt,
      origin: 'plan',
      reason: null,
      trace_context: a.traceContext ?? null,
    };
  }

  /**
   * The head: an announced planner snapshot newer than any head answered before (the planner announces only after
   * commit, and ids grow along the chain), else the row Postgres holds. The head poll asks Postgres regardless of
   * announcements, so a missed or reordered one costs at most one poll period.
   */
  async head(appliance: string, options: { readonly fresh?: boolean } = {}): Promise<SnapshotHeader | null> {
    const announced = options.fresh === true ? null : this.announced;
    if (options.fresh !== true) this.announced = null;
    if (announced !== null && (this.newestHeadId === null || BigInt(announced.id) > this.newestHeadId)) {
      this.newestHeadId = BigInt(announced.id);
      this.rows.set(announced.id, announced);
      const header = { id: announced.id, hash: announced.content_hash, held: false, holdReason: null };
      const traceContext = announced.trace_context ?? null;
      return traceContext === null ? header : { ...header, traceContext };
    }
    this.headQueries++;
    const row = await this.db
      .selectFrom('snapshot_heads as h')
      .innerJoin('snapshots as s', 's.id', 'h.snapshot_id')
      .select([
        's.id',
        's.content_hash',
        's.root_hash',
        's.held',
        's.hold_reason',
        's.created_at',
        's.origin',
        's.reason',
      ])
      .where('h.appliance', '=', appliance)
      .executeTakeFirst();
    if (row === undefined) return null;
    if (this.rows.size > 16) this.rows.clear();
    this.rows.set(String(row.id), row);
    if (this.newestHeadId === null || BigInt(row.id) > this.newestHeadId) this.newestHeadId = BigInt(row.id);
    const header = { id: String(row.id), hash: row.content_hash, held: row.held, holdReason: row.hold_reason };
    if (!row.held) return header;
    const unheld = await this.db
      .selectFrom('snapshots')
      .select('id')
      .where('appliance', '=', appliance)
      .where('held', '=', false)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return { ...header, newestUnheldId: unheld === undefined ? null : String(unheld.id) };
  }

  async get(id: string): Promise<LoadedSnapshot> {
    // A snapshot row never changes once written except its hold flag, which the head query has just read.
    const row =
      this.rows.get(id) ??
      (await this.db
        .selectFrom('snapshots')
        .select(['id', 'content_hash', 'root_hash', 'held', 'hold_reason', 'created_at', 'origin', 'reason'])
        .where('id', '=', id)
        .executeTakeFirst());
    if (row === undefined) throw new SnapshotLoadError(`snapshot ${id} does not exist`);
    this.rows.delete(id);
    const fetched = new Map<string, Uint8Array>();
    const offered = this.offered;
    const lookup: PieceLookup = (pieceId) => fetched.get(pieceId) ?? offered.get(pieceId);
    let desired: DesiredState;
    try {
      // A first read fetches the whole snapshot level by level from the pieces' references (one parse per piece);
      // later reads ask the reader which pieces differ.
      if (this.reader.current === null) await this.prefetchAll(row.root_hash, fetched);
      for (
        let ids = this.reader.missing(row.root_hash, lookup);
        ids.length > 0;
        ids = this.reader.missing(row.root_hash, lookup)
      ) {
        const rows = await this.fetch(ids);
        for (const r of rows) fetched.set(r.hash, new Uint8Array(r.body));
        const absent = ids.find((pieceId) => !fetched.has(pieceId));
        if (absent !== undefined) throw new SnapshotPieceMissingError(absent);
      }
      desired = this.reader.read(row.root_hash, lookup);
      this.offered = new Map();
    } catch (cause) {
      throw cause instanceof SnapshotLoadError
        ? cause
        : new SnapshotLoadError(`snapshot ${id} cannot be decoded: ${(cause as Error).message}`, { cause });
    }
    return {
      id: String(row.id),
      hash: row.content_hash,
      held: row.held,
      holdReason: row.hold_reason,
      desired,
      createdAt: new Date(row.created_at),
      origin: row.origin,
      reason: row.reason,
    };
  }

  async oldestUnappliedAt(appliance: string, afterId: string | null): Promise<Date | null> {
    let q = this.db
      .selectFrom('snapshots')
      .select((eb) => eb.fn.min('created_at').as('oldest'))
      .where('appliance', '=', appliance)
      .where('held', '=', false);
    if (afterId !== null) q = q.where('id', '>', afterId);
    const row = await q.executeTakeFirst();
    return row?.oldest === null || row?.oldest === undefined ? null : new Date(row.oldest as Date);
  }

  private async prefetchAll(root: string, fetched: Map<string, Uint8Array>): Promise<void> {
    this.fetchedPieces += await prefetchSnapshot(this.db, this.reader, root, fetched);
  }

  private async fetch(ids: readonly string[]): Promise<{ hash: string; body: Buffer }[]> {
    const rows = await readSnapshotPieces(this.db, ids);
    this.fetchedPieces += rows.length;
    return rows;
  }
}
