import type { CommandIo } from '../adapters/command-io.ts';
import { diffDesiredStates } from '../core/desired-diff.ts';
import { formatDiffTable, operationView, snapshotHeader, type DiffReport } from '../core/snapshot-views.ts';
import { vendorOperations, vendorRenderer } from '../core/vendor-renderer.ts';
import type { SnapshotRecord } from '../core/history-report.ts';
import {
  commonOptions,
  desiredOf,
  outputFormat,
  parseCommand,
  printReport,
  requireSnapshot,
  withContext,
  type AuditContext,
} from './audit-context.ts';

/** `portolan diff <a> <b>`: object-level changes from a to b and the vendor operations a push would make. */
export async function runDiff(args: readonly string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommand(
    args,
    { ...commonOptions },
    { min: 2, max: 2, names: 'two snapshots (from and to)' },
  );
  const format = outputFormat(values.output);
  return withContext(io, 'diff', values.config, async (ctx) => {
    const a = await requireSnapshot(ctx, positionals[0]!);
    const b = await requireSnapshot(ctx, positionals[1]!);
    printReport(io, format, await diffReport(ctx, a, b), formatDiffTable);
    return 0;
  });
}

/** The diff report between two snapshots (also shown by `rollback` before it asks). Pure apart from loading. */
export async function diffReport(ctx: AuditContext, a: SnapshotRecord, b: SnapshotRecord): Promise<DiffReport> {
  const da = await desiredOf(ctx, a);
  const db = await desiredOf(ctx, b);
  const objects = diffDesiredStates(da, db);
  const appliance = ctx.fleet.config.appliances.find((x) => x.name === b.appliance);
  let note: string | null = null;
  if (appliance === undefined) note = `appliance "${b.appliance}" is not in the fleet config`;
  else if (da.driver !== db.driver || appliance.driver !== db.driver)
    note = `the snapshots are for different drivers (${da.driver}, ${db.driver})`;
  const operations =
    note === null && appliance !== undefined
      ? vendorOperations(vendorRenderer(appliance), da, db).map(operationView)
      : null;
  return { from: snapshotHeader(a), to: snapshotHeader(b), objects, operations, note };
}
