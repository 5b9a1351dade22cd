import { applyView, driftView, type AtReport } from '../core/at-report.ts';
import { operationView, snapshotHeader, vendorView } from '../core/snapshot-views.ts';
import { listVendorObjects } from '../core/vendor-objects.ts';
import { vendorRenderer } from '../core/vendor-renderer.ts';
import { CommandFailed } from '../errors.ts';
import { desiredOf, requireAppliance, requireSnapshot, timeParam, type AuditContext } from './audit-context.ts';

/**
 * What the appliance held at `time` (a Date or a time spec): the read-back stored with the newest apply (succeeded,
 * partial or no-op) finished at or before it — not the plan — with how it differed from its plan and any drift seen
 * after it.
 */
export async function atReport(ctx: AuditContext, appliance: string, at: Date | string): Promise<AtReport> {
  const time = timeParam(ctx, 'time', at) ?? ctx.now();
  const renderer = vendorRenderer(requireAppliance(ctx, appliance));
  const apply = await ctx.store.lastAppliedAt(appliance, time);
  if (apply === null || apply.observedAfterHash === null) {
    const first = (await ctx.store.applies(appliance))[0];
    throw new CommandFailed(
      'not-found',
      `no apply of ${appliance} with a read-back finished at or before ${time.toISOString()}${first ? ` (the first apply finished at ${first.finishedAt.toISOString()})` : ' (it has no applies yet)'}`,
    );
  }
  const observed = await ctx.store.pieceJson(apply.observedAfterHash);
  if (observed === null)
    throw new CommandFailed(
      'not-found',
      `the read-back ${apply.observedAfterHash} of apply ${apply.id} is missing from the store`,
    );
  const snapshot = await requireSnapshot(ctx, apply.snapshotId);
  const planned = renderer.render(await desiredOf(ctx, snapshot), observed);
  const drift = await ctx.store.drift(appliance, { since: apply.finishedAt, until: time });
  return {
    appliance,
    time: time.toISOString(),
    apply: applyView(apply),
    snapshot: snapshotHeader(snapshot),
    objects: vendorView(listVendorObjects(renderer.kind, observed)),
    differencesFromPlan: renderer.diff(planned, observed).map(operationView),
    driftAfter: driftView(drift),
    observed,
  };
}
