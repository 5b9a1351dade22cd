import { diffDesiredStates } from '../core/desired-diff.ts';
import type { SnapshotRecord } from '../core/history-report.ts';
import { operationView, snapshotHeader, type DiffReport } from '../core/snapshot-views.ts';
import { vendorOperations, vendorRenderer } from '../core/vendor-renderer.ts';
import { desiredOf, requireSnapshot, type AuditContext } from './audit-context.ts';

/**
 * Object-level changes from snapshot a to b and the vendor operations a push would make. Takes snapshot refs (ids,
 * `head:<appliance>`) or records already read (rollback passes its head and target).
 */
export async function diffReport(
  ctx: AuditContext,
  from: SnapshotRecord | string,
  to: SnapshotRecord | string,
): Promise<DiffReport> {
  const a = typeof from === 'string' ? await requireSnapshot(ctx, from) : from;
  const b = typeof to === 'string' ? await requireSnapshot(ctx, to) : to;
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
