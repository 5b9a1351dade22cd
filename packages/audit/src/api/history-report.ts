import type { DesiredState } from '@portolan/desired-state';
import { readHoldsBetween, readOperatorActions } from '@portolan/store';
import type { Progress } from '../adapters/command-io.ts';
import { isRelevant, referencedObjects } from '../core/desired-refs.ts';
import { filterHistory, isHistoryKind, HISTORY_KINDS, type HistoryKind } from '../core/history-filter.ts';
import {
  buildHistory,
  snapshotCause,
  type HistoryReport,
  type SnapshotCause,
  type SnapshotRecord,
} from '../core/history-report.ts';
import { CommandFailed } from '../errors.ts';
import {
  desiredOf,
  noProgress,
  requireAppliance,
  timeParam,
  type AuditContext,
  type ProgressFactory,
} from './audit-context.ts';

/** Which history to build: the appliance, a window (Dates or time specs), and what to keep of it. */
export interface HistoryParams {
  readonly appliance: string;
  readonly since?: Date | string | null;
  readonly until?: Date | string | null;
  /** Keep snapshots whose cause names an object containing this text (case-insensitive), and their applies. */
  readonly object?: string;
  /** Keep only entries of these kinds (`hold` covers releases too). */
  readonly kinds?: readonly string[];
}

/**
 * An appliance's snapshots (with what caused each), applies, drift, holds and operator actions in time order,
 * within the window and narrowed by the filters.
 */
export async function historyReport(
  ctx: AuditContext,
  params: HistoryParams,
  options: { readonly progress?: ProgressFactory } = {},
): Promise<HistoryReport> {
  const { appliance } = params;
  const since = timeParam(ctx, 'since', params.since);
  const until = timeParam(ctx, 'until', params.until);
  const kinds = historyKinds(params.kinds);
  const entry = requireAppliance(ctx, appliance);
  const snapshots = await ctx.store.snapshots(appliance, { since, until });
  const causes = await causesOf(ctx, (options.progress ?? noProgress)('reading snapshots'), snapshots);
  const [applies, drift, holds, actions] = await Promise.all([
    ctx.store.applies(appliance, { since, until }),
    ctx.store.drift(appliance, { since, until }),
    readHoldsBetween(ctx.db, entry.clusters ?? null, since, until),
    readOperatorActions(ctx.db, appliance, { since, until }),
  ]);
  const rollbackReasons = new Map(
    snapshots.filter((x) => x.origin === 'rollback').map((x) => [x.id, x.reason] as const),
  );
  for (const a of applies) {
    if (a.trigger !== 'rollback' || rollbackReasons.has(a.snapshotId)) continue;
    const x = await ctx.store.snapshot(a.snapshotId);
    rollbackReasons.set(a.snapshotId, x?.reason ?? null);
  }
  const report = buildHistory({
    appliance,
    since,
    until,
    snapshots: snapshots.map((record, i) => ({ record, cause: causes[i]! })),
    applies,
    drift,
    rollbackReasons,
    holds,
    actions,
  });
  return filterHistory(report, { ...(params.object === undefined ? {} : { object: params.object }), kinds });
}

/** The kinds asked for; an unknown one is invalid, naming the known ones. */
function historyKinds(kinds: readonly string[] | undefined): HistoryKind[] {
  const out: HistoryKind[] = [];
  for (const k of kinds ?? []) {
    if (!isHistoryKind(k))
      throw new CommandFailed('invalid', `unknown history kind "${k}" (kinds: ${HISTORY_KINDS.join(', ')})`);
    out.push(k);
  }
  return out;
}

/**
 * What caused each snapshot: the archived changes between its parent's last event and its own, narrowed to the
 * objects either plan names. Walks the chain oldest first so each desired state is decoded once.
 */
async function causesOf(
  ctx: AuditContext,
  bar: Progress,
  snapshots: readonly SnapshotRecord[],
): Promise<SnapshotCause[]> {
  const out: SnapshotCause[] = [];
  let previous: { record: SnapshotRecord; desired: DesiredState | null } | null = null;
  try {
    for (const [i, s] of snapshots.entries()) {
      bar.tick(i, snapshots.length);
      const parent =
        s.parentId === null
          ? null
          : previous?.record.id === s.parentId
            ? previous.record
            : await ctx.store.snapshot(s.parentId);
      const fromSeq = parent?.lastEventSeq ?? 0;
      const { changes, total } =
        s.origin === 'rollback' ? { changes: [], total: 0 } : await ctx.store.changes(fromSeq, s.lastEventSeq);
      let desired: DesiredState | null = null;
      if (changes.length > 0) {
        desired = await desiredOf(ctx, s);
        const before =
          parent === null
            ? null
            : previous?.record.id === parent.id && previous.desired !== null
              ? previous.desired
              : await desiredOf(ctx, parent);
        const refs = referencedObjects(...(before === null ? [desired] : [before, desired]));
        out.push(snapshotCause(fromSeq, s.lastEventSeq, changes, (c) => isRelevant(c, refs), total));
      } else {
        out.push(snapshotCause(fromSeq, s.lastEventSeq, [], () => false, total));
      }
      previous = { record: s, desired };
    }
  } finally {
    bar.done();
  }
  return out;
}
