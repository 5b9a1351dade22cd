import { decodeBusMessage } from './core/world/decode-bus-message.ts';
import { Planner, PLANNER_VERSION, type PlannerConfig } from './core/planner.ts';
import { layoutOf, type SnapshotLayout } from '@portolan/snapshot';
import { foldInput } from './core/fold-input.ts';
import type { PgPlannerStore } from './adapters/pg-planner-store.ts';

/** One stored snapshot whose hash replay did not reproduce. */
export interface ReplayMismatch {
  readonly snapshotId: string;
  readonly appliance: string;
  readonly lastEventSeq: number;
  readonly stored: string;
  readonly replayed: string | null;
  /** Set when the snapshot was made by another planner version: the difference is explained by it. */
  readonly plannerVersion: string;
  readonly explainedByVersion: boolean;
}

/** The outcome of `replay --verify`. */
export interface ReplayReport {
  readonly events: number;
  readonly verified: number;
  readonly mismatches: readonly ReplayMismatch[];
  readonly seconds: number;
}

/**
 * Rebuilds snapshots from the Postgres archive and compares every planner-made snapshot hash in [from, to] with
 * the stored one. The world is folded from the first event (a snapshot depends on everything before it); each
 * snapshot is checked at its `last_event_seq`, so the live planner's batching does not matter.
 */
export async function replayVerify(
  store: PgPlannerStore,
  config: PlannerConfig,
  options: { from?: number; to?: number; onProgress?: (done: number, total: number) => void } = {},
): Promise<ReplayReport> {
  const started = performance.now();
  const from = options.from ?? 0;
  const to = options.to ?? Number.MAX_SAFE_INTEGER;
  // The archive's first page is asked for with the snapshots: it is needed whatever they say (the fold starts at the
  // first event), and reading up to `to` rather than the last snapshot's event only reads past it, never short.
  const pages = store.archivedPages(0, to);
  const firstPage = pages.next();
  // Should the snapshots' query fail first, this page is awaited by nobody: `return()` below closes the reader.
  firstPage.catch(() => undefined);
  try {
    const run = new ReplayRun(config, await plannedSnapshots(store, from, to));
    fold: for (let page = await firstPage; page.done !== true; page = await pages.next())
      for (const e of page.value) {
        if (e.seq > run.lastSeq) break fold;
        run.fold(e.seq, e.subject, e.payload);
        if (run.events % 5000 === 0) options.onProgress?.(e.seq, run.lastSeq);
      }
    run.checkUpTo(Number.MAX_SAFE_INTEGER);
    return {
      events: run.events,
      verified: run.rows.length,
      mismatches: run.mismatches,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await pages.return(undefined);
  }
}

type SnapshotRow = Awaited<ReturnType<typeof plannedSnapshots>>[number];

/**
 * One replay: the archive folded event by event into one planner per snapshot layout the range holds (one, unless
 * the archive spans a planner upgrade), each snapshot's hash compared at its `last_event_seq`. Mutable: it is the
 * fold's state and the checks' position.
 */
class ReplayRun {
  readonly rows: readonly SnapshotRow[];
  readonly lastSeq: number;
  readonly mismatches: ReplayMismatch[] = [];
  events = 0;
  /** Each snapshot is re-encoded in the layout its stored root names. */
  private readonly layouts: readonly (SnapshotLayout | undefined)[];
  private readonly planners = new Map<number, { planner: Planner; roots: Map<string, string> }>();
  private readonly heartbeats = new Map<string, number>();
  /** The next snapshot to check. */
  private next = 0;

  constructor(config: PlannerConfig, rows: readonly SnapshotRow[]) {
    this.rows = rows;
    this.lastSeq = rows.length === 0 ? 0 : Number(rows[rows.length - 1]!.last_event_seq);
    this.layouts = rows.map((r) => storedLayout(r.body));
    for (const layout of this.layouts)
      if (layout !== undefined && !this.planners.has(layout.version))
        this.planners.set(layout.version, {
          planner: new Planner(config, { layout, keepsPieces: false }),
          roots: new Map(),
        });
  }

  /** Folds one archived event, after checking the snapshots made before it. */
  fold(seq: number, subject: string, payload: Uint8Array): void {
    if (this.next < this.rows.length && Number(this.rows[this.next]!.last_event_seq) < seq) this.checkUpTo(seq - 1);
    const message = decodeBusMessage(subject, payload);
    for (const { planner } of this.planners.values()) foldInput(planner, message, this.heartbeats);
    this.events++;
  }

  /** Plans what is dirty and compares every snapshot whose last event is at or before `seq`. */
  checkUpTo(seq: number): void {
    for (const { planner, roots } of this.planners.values())
      for (const p of planner.planDirty()) roots.set(p.appliance, p.root);
    const rows = this.rows;
    while (this.next < rows.length && Number(rows[this.next]!.last_event_seq) <= seq) {
      const layout = this.layouts[this.next];
      const r = rows[this.next++]!;
      const replayed =
        layout === undefined ? null : (this.planners.get(layout.version)!.roots.get(r.appliance) ?? null);
      if (replayed !== r.content_hash)
        this.mismatches.push({
          snapshotId: r.id,
          appliance: r.appliance,
          lastEventSeq: Number(r.last_event_seq),
          stored: r.content_hash,
          replayed,
          plannerVersion: r.planner_version,
          explainedByVersion: r.planner_version !== PLANNER_VERSION,
        });
    }
  }
}

/** The planner-made snapshots whose last event is in [from, to], in event order, each with its root piece. */
function plannedSnapshots(store: PgPlannerStore, from: number, to: number) {
  return store.db
    .selectFrom('snapshots')
    .leftJoin('snapshot_pieces', 'snapshot_pieces.hash', 'snapshots.content_hash')
    .select([
      'snapshots.id',
      'snapshots.appliance',
      'snapshots.content_hash',
      'snapshots.last_event_seq',
      'snapshots.planner_version',
      'snapshot_pieces.body',
    ])
    .where('snapshots.origin', '=', 'plan')
    .where('snapshots.last_event_seq', '>=', String(from))
    .where('snapshots.last_event_seq', '<=', String(to))
    .orderBy('snapshots.last_event_seq')
    .orderBy('snapshots.id')
    .execute();
}

/** The layout a stored root piece names (undefined: the piece is missing or names a layout this planner lacks). */
function storedLayout(body: Uint8Array | null): SnapshotLayout | undefined {
  if (body === null) return undefined;
  try {
    return layoutOf((JSON.parse(Buffer.from(body).toString('utf8')) as { layout?: unknown }).layout);
  } catch (e) {
    // A root piece that is not JSON names no layout: it is reported as a mismatch, not a crash of the replay.
    if (!(e instanceof SyntaxError)) throw e;
    return undefined;
  }
}
