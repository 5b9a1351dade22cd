import type { DesiredState } from '@portolan/desired-state';
import { readHoldsBetween } from '@portolan/store';
import { progress, type CommandIo } from '../adapters/command-io.ts';
import { isRelevant, referencedObjects } from '../core/desired-refs.ts';
import {
  buildHistory,
  formatHistoryTable,
  snapshotCause,
  type SnapshotCause,
  type SnapshotRecord,
} from '../core/history-report.ts';
import {
  commonOptions,
  desiredOf,
  outputFormat,
  parseCommand,
  printReport,
  requireAppliance,
  timeOption,
  withContext,
  type AuditContext,
} from './audit-context.ts';

/** `portolan history <appliance> [--since T] [--until T]`: snapshots, applies and drift in time order, with causes. */
export async function runHistory(args: readonly string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommand(
    args,
    { ...commonOptions, since: { type: 'string' }, until: { type: 'string' } },
    { min: 1, max: 1, names: 'appliance' },
  );
  const format = outputFormat(values.output);
  const since = timeOption(io, 'since', values.since);
  const until = timeOption(io, 'until', values.until);
  const appliance = positionals[0]!;
  return withContext(io, 'history', values.config, async (ctx) => {
    requireAppliance(ctx, appliance);
    const snapshots = await ctx.store.snapshots(appliance, { since, until });
    const causes = await causesOf(ctx, io, snapshots);
    const [applies, drift] = await Promise.all([
      ctx.store.applies(appliance, { since, until }),
      ctx.store.drift(appliance, { since, until }),
    ]);
    const rollbackReasons = new Map(
      snapshots.filter((x) => x.origin === 'rollback').map((x) => [x.id, x.reason] as const),
    );
    for (const a of applies) {
      if (a.trigger !== 'rollback' || rollbackReasons.has(a.snapshotId)) continue;
      const x = await ctx.store.snapshot(a.snapshotId);
      rollbackReasons.set(a.snapshotId, x?.reason ?? null);
    }
    const entry = ctx.fleet.config.appliances.find((a) => a.name === appliance);
    const holds = await readHoldsBetween(ctx.db, entry?.clusters ?? null, since, until);
    const report = buildHistory({
      appliance,
      since,
      until,
      snapshots: snapshots.map((record, i) => ({ record, cause: causes[i]! })),
      applies,
      drift,
      rollbackReasons,
      holds,
    });
    printReport(io, format, report, formatHistoryTable);
    return 0;
  });
}

/**
 * What caused each snapshot: the archived changes between its parent's last event and its own, narrowed to the
 * objects either plan names. Walks the chain oldest first so each desired state is decoded once.
 */
export async function causesOf(
  ctx: AuditContext,
  io: CommandIo,
  snapshots: readonly SnapshotRecord[],
): Promise<SnapshotCause[]> {
  const bar = progress(io, 'reading snapshots');
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
