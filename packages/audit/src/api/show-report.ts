import { snapshotHeader, vendorView, type ShowReport } from '../core/snapshot-views.ts';
import { listVendorObjects } from '../core/vendor-objects.ts';
import { vendorRenderer } from '../core/vendor-renderer.ts';
import { desiredOf, requireAppliance, requireSnapshot, type AuditContext } from './audit-context.ts';

/** A snapshot's desired state object by object and, with `vendor`, the vendor objects it renders to. */
export async function showReport(
  ctx: AuditContext,
  params: { readonly snapshot: string; readonly vendor?: boolean },
): Promise<ShowReport> {
  const s = await requireSnapshot(ctx, params.snapshot);
  const desired = await desiredOf(ctx, s);
  let vendor: ShowReport['vendor'] = null;
  if (params.vendor === true) {
    const renderer = vendorRenderer(requireAppliance(ctx, s.appliance));
    vendor = vendorView(listVendorObjects(renderer.kind, renderer.render(desired)));
  }
  return { snapshot: snapshotHeader(s), desired, vendor };
}
