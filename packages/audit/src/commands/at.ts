import type { CommandIo } from '../adapters/command-io.ts';
import { applyView, driftView, formatAtTable, type AtReport } from '../core/at-report.ts';
import { operationView, snapshotHeader, vendorView } from '../core/snapshot-views.ts';
import { listVendorObjects } from '../core/vendor-objects.ts';
import { vendorRenderer } from '../core/vendor-renderer.ts';
import {
  CommandFailed,
  commonOptions,
  desiredOf,
  outputFormat,
  parseCommand,
  printReport,
  requireAppliance,
  requireSnapshot,
  timeOption,
  withContext,
  type AuditContext,
} from './audit-context.ts';
import { AuditUsageError } from '../errors.ts';

/** `portolan at <appliance> --time T`: the configuration the appliance had at T, from the apply log. */
export async function runAt(args: readonly string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommand(
    args,
    { ...commonOptions, time: { type: 'string', short: 't' } },
    { min: 1, max: 1, names: 'appliance' },
  );
  const format = outputFormat(values.output);
  const time = timeOption(io, 'time', values.time);
  if (time === null) throw new AuditUsageError('--time is required');
  return withContext(io, 'at', values.config, async (ctx) => {
    printReport(io, format, await atReport(ctx, positionals[0]!, time), formatAtTable);
    return 0;
  });
}

/**
 * What the appliance held at `time`: the read-back stored with the newest apply (succeeded, partial or no-op)
 * finished at or before it — not the plan — with how it differed from its plan and any drift seen after it.
 */
export async function atReport(ctx: AuditContext, appliance: string, time: Date): Promise<AtReport> {
  const renderer = vendorRenderer(requireAppliance(ctx, appliance));
  const apply = await ctx.store.lastAppliedAt(appliance, time);
  if (apply === null || apply.observedAfterHash === null) {
    const first = (await ctx.store.applies(appliance))[0];
    throw new CommandFailed(
      `no apply of ${appliance} with a read-back finished at or before ${time.toISOString()}${first ? ` (the first apply finished at ${first.finishedAt.toISOString()})` : ' (it has no applies yet)'}`,
    );
  }
  const observed = await ctx.store.pieceJson(apply.observedAfterHash);
  if (observed === null)
    throw new CommandFailed(`the read-back ${apply.observedAfterHash} of apply ${apply.id} is missing from the store`);
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
