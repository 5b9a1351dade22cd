import type { Operation } from '@portolan/appliance-driver';
import type { DesiredState, DriverKind } from '@portolan/desired-state';
import type { ApplianceConfig } from '@portolan/fleet-config';
import {
  DEFAULT_SPARES,
  defaultRenderTuning,
  diffHaproxy,
  renderHaproxyBundle,
  type HaproxyBundle,
} from '@portolan/haproxy-driver';
import { diffVendorState, renderVendorState, type LmVendorState } from '@portolan/loadmaster-driver';
import { diffVtm, renderVtm, type VtmObjects } from '@portolan/vtm-driver';

/**
 * An appliance's pure render and diff, without a connection: what `diff`, `explain` and `rollback` use to
 * show the vendor-level operations a push would make. Same functions the drivers run, same settings
 * (from the fleet config entry).
 */
export interface VendorRenderer {
  readonly kind: DriverKind;
  /** Renders a desired state; `previous` (a render of the state before) keeps HAProxy members in their slots. */
  render(desired: DesiredState, previous?: unknown): unknown;
  /** Operations turning `observed` into `desired`, in the driver's order. */
  diff(desired: unknown, observed: unknown): readonly Operation[];
}

/** The renderer for one fleet-config appliance entry. */
export function vendorRenderer(appliance: ApplianceConfig): VendorRenderer {
  if (appliance.driver === 'vtm') {
    const config = {
      appliance: appliance.name,
      defaultTrafficIpGroup: appliance.vtm?.defaultTrafficIpGroup ?? null,
      machines: appliance.vtm?.machines ?? null,
    };
    return {
      kind: 'vtm',
      render: (d) => renderVtm(d, config),
      diff: (a, b) => diffVtm(a as VtmObjects, b as VtmObjects),
    };
  }
  if (appliance.driver === 'loadmaster') {
    const config = { appliance: appliance.name, defaultAddress: appliance.loadmaster?.defaultAddress ?? null };
    return {
      kind: 'loadmaster',
      render: (d) => renderVendorState(d, config),
      diff: (a, b) => diffVendorState(a as LmVendorState, b as LmVendorState),
    };
  }
  const h = appliance.haproxy;
  const options = {
    configDir: h?.configDir ?? '/',
    defaultAddress: h?.address ?? '127.0.0.1',
    sizing: {
      minFreeSlots: h?.minFreeSlots ?? 4,
      slotIncrement: h?.slotIncrement ?? 8,
      spareBackends: h?.spareBackends ?? DEFAULT_SPARES.spareBackends,
      spareSlots: h?.spareSlots ?? DEFAULT_SPARES.spareSlots,
    },
    serverHeader: defaultRenderTuning.serverHeader,
    hardStopAfter: defaultRenderTuning.hardStopAfter,
  };
  return {
    kind: 'haproxy',
    // The render before places members in slots and new pools in spares, as the applier's would.
    render: (d, previous) => renderHaproxyBundle(d, options, (previous as HaproxyBundle | undefined) ?? []),
    diff: (a, b) => diffHaproxy(a as HaproxyBundle, b as HaproxyBundle),
  };
}

/** The operations a push from `a` to `b` would make: render both (b keeping a's slots) and diff. */
export function vendorOperations(renderer: VendorRenderer, a: DesiredState, b: DesiredState): readonly Operation[] {
  const before = renderer.render(a);
  const after = renderer.render(b, before);
  return renderer.diff(after, before);
}
