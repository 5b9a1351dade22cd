import type { Operation } from '@portolan/appliance-driver';
import type { LmRealServerSpec } from './lm-vendor-state.ts';

/** Where real servers live: directly on an owned VS, in an owned SubVS, or in a Service-mode target VS. */
export type RealServerScope =
  | { readonly kind: 'vs'; readonly vs: string }
  | { readonly kind: 'subvs'; readonly vs: string; readonly subVs: string }
  | { readonly kind: 'target'; readonly vs: string };

/** Per-address operations: delete what is gone, add what is new, modify weight/enable in place (one call each). */
export function diffRealServers(
  scope: RealServerScope,
  desired: readonly LmRealServerSpec[],
  observed: readonly LmRealServerSpec[],
): Operation[] {
  const key = (rs: LmRealServerSpec): string => `${rs.address}:${rs.port}`;
  const seen = new Map(observed.map((rs) => [key(rs), rs] as const));
  const wanted = new Set(desired.map(key));
  const where = scope.kind === 'subvs' ? `${scope.vs}/${scope.subVs}` : scope.vs;
  const ops: Operation[] = [];
  const payload = (rs: LmRealServerSpec): Operation['payload'] => ({
    scope: scope.kind,
    vs: scope.vs,
    subVs: scope.kind === 'subvs' ? scope.subVs : null,
    address: rs.address,
    port: rs.port,
    weight: rs.weight,
    enable: rs.enable,
  });
  for (const rs of observed) {
    if (!wanted.has(key(rs))) {
      ops.push({
        objectType: 'real-server',
        objectName: `${where}/${key(rs)}`,
        action: 'delete',
        payload: payload(rs),
        summary: `remove real server ${key(rs)} from ${where}`,
      });
    }
  }
  for (const rs of desired) {
    const old = seen.get(key(rs));
    if (old === undefined) {
      ops.push({
        objectType: 'real-server',
        objectName: `${where}/${key(rs)}`,
        action: 'create',
        payload: payload(rs),
        summary: `add real server ${key(rs)} to ${where}`,
      });
    } else if (old.weight !== rs.weight || old.enable !== rs.enable) {
      ops.push({
        objectType: 'real-server',
        objectName: `${where}/${key(rs)}`,
        action: 'update',
        payload: payload(rs),
        summary: `set real server ${key(rs)} in ${where}: weight ${rs.weight}, ${rs.enable ? 'enabled' : 'disabled (draining)'}`,
      });
    }
  }
  return ops;
}
