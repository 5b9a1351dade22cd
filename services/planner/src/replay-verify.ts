import { decodeBusMessage } from './core/decode-bus-message.ts';
import { Planner, PLANNER_VERSION, type PlannerConfig } from './core/planner.ts';
import { foldInput } from './planner-service.ts';
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
export async function replayVerify(store: PgPlannerStore, config: PlannerConfig, options: { from?: number; to?: number; onProgress?: (done: number, total: number) => void } = {}): Promise<ReplayReport> {
  const started = performance.now();
  const from = options.from ?? 0;
  const to = options.to ?? Number.MAX_SAFE_INTEGER;
  const rows = await store.db
    .selectFrom('snapshots')
    .select(['id', 'appliance', 'content_hash', 'last_event_seq', 'planner_version'])
    .where('origin', '=', 'plan')
    .where('last_event_seq', '>=', String(from))
    .where('last_event_seq', '<=', String(to))
    .orderBy('last_event_seq')
    .orderBy('id')
    .execute();
  const lastSeq = rows.length === 0 ? 0 : Number(rows[rows.length - 1]!.last_event_seq);
  const planner = new Planner(config);
  const heartbeats = new Map<string, number>();
  const roots = new Map<string, string>();
  const mismatches: ReplayMismatch[] = [];
  let events = 0;
  let next = 0;
  const checkUpTo = (seq: number): void => {
    for (const p of planner.planDirty()) roots.set(p.appliance, p.root);
    while (next < rows.length && Number(rows[next]!.last_event_seq) <= seq) {
      const r = rows[next++]!;
      const replayed = roots.get(r.appliance) ?? null;
      if (replayed !== r.content_hash) {
        mismatches.push({ snapshotId: r.id, appliance: r.appliance, lastEventSeq: Number(r.last_event_seq), stored: r.content_hash, replayed, plannerVersion: r.planner_version, explainedByVersion: r.planner_version !== PLANNER_VERSION });
      }
    }
  };
  for await (const e of store.archive(0, lastSeq)) {
    // Snapshots committed at a position before this event are checked against the world as it was then.
    if (next < rows.length && Number(rows[next]!.last_event_seq) < e.seq) checkUpTo(e.seq - 1);
    foldInput(planner, decodeBusMessage(e.subject, e.payload), heartbeats);
    events++;
    if (events % 5000 === 0) options.onProgress?.(e.seq, lastSeq);
  }
  checkUpTo(Number.MAX_SAFE_INTEGER);
  return { events, verified: rows.length, mismatches, seconds: (performance.now() - started) / 1000 };
}
