import type { CommandIo } from '../adapters/command-io.ts';
import { formatShowTable, snapshotHeader, vendorView, type ShowReport } from '../core/snapshot-views.ts';
import { listVendorObjects } from '../core/vendor-objects.ts';
import { vendorRenderer } from '../core/vendor-renderer.ts';
import {
  commonOptions,
  desiredOf,
  outputFormat,
  parseCommand,
  printReport,
  requireAppliance,
  requireSnapshot,
  withContext,
} from './audit-context.ts';

/** `portolan show <snapshot> [--vendor]`: the desired state object by object (and the vendor objects it renders to). */
export async function runShow(args: readonly string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommand(
    args,
    { ...commonOptions, vendor: { type: 'boolean' } },
    { min: 1, max: 1, names: 'snapshot' },
  );
  const format = outputFormat(values.output);
  return withContext(io, 'show', values.config, async (ctx) => {
    const s = await requireSnapshot(ctx, positionals[0]!);
    const desired = await desiredOf(ctx, s);
    let vendor: ShowReport['vendor'] = null;
    if (values.vendor === true) {
      const renderer = vendorRenderer(requireAppliance(ctx, s.appliance));
      vendor = vendorView(listVendorObjects(renderer.kind, renderer.render(desired)));
    }
    printReport(io, format, { snapshot: snapshotHeader(s), desired, vendor }, formatShowTable);
    return 0;
  });
}
