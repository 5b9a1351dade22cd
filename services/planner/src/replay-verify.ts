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
  const rows = await plannedSnapshots(store, from, to);
  const lastSeq = rows.length === 0 ? 0 : Number(rows[rows.length - 1]!.last_event_seq);
  // Each snapshot is re-encoded in the layout its stored root names: one planner per layout the range holds (one,
  // unless the archive spans a planner upgrade), all folding the same events.
  const layouts = rows.map((r) => storedLayout(r.body));
  const planners = new Map<number, { planner: Planner; roots: Map<string, string> }>();
  for (const layout of layouts)
    if (layout !== undefined && !planners.has(layout.version))
      planners.set(layout.version, { planner: new Planner(config, { layout, keepsPieces: false }), roots: new Map() });
  const heartbeats = new Map<string, number>();
  const mismatches: ReplayMismatch[] = [];
  let events = 0;
  let next = 0;
  const checkUpTo = (seq: number): void => {
    for (const { planner, roots } of planners.values())
      for (const p of planner.planDirty()) roots.set(p.appliance, p.root);
    while (next < rows.length && Number(rows[next]!.last_event_seq) <= seq) {
      const layout = layouts[next];
      const r = rows[next++]!;
      const replayed = layout === undefined ? null : (planners.get(layout.version)!.roots.get(r.appliance) ?? null);
      if (replayed !== r.content_hash) {
        mismatches.push({
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
  };
  for await (const page of store.archivedPages(0, lastSeq))
    for (const e of page) {
      if (next < rows.length && Number(rows[next]!.last_event_seq) < e.seq) checkUpTo(e.seq - 1);
      const message = decodeBusMessage(e.subject, e.payload);
      for (const { planner } of planners.values()) foldInput(planner, message, heartbeats);
      events++;
      if (events % 5000 === 0) options.onProgress?.(e.seq, lastSeq);
    }
  checkUpTo(Number.MAX_SAFE_INTEGER);
  return { events, verified: rows.length, mismatches, seconds: (performance.now() - started) / 1000 };
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
