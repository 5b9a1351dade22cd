import type { DesiredState, ObjectRef } from '@portolan/desired-state';
import { compareCodeUnits } from '@portolan/desired-state';

/** One entry of an Ingress's `status.loadBalancer.ingress`. */
export interface LoadBalancerIngress {
  readonly ip?: string;
  readonly hostname?: string;
}

/** The load-balancer entries one appliance contributes to one Ingress. */
export interface IngressStatusTarget {
  readonly ref: ObjectRef;
  readonly entries: readonly LoadBalancerIngress[];
}

/** A stable key for an object reference. */
export function refKey(ref: ObjectRef): string {
  return `${ref.cluster}/${ref.kind}/${ref.namespace}/${ref.name}`;
}

const ipv4 = /^(\d{1,3})(\.\d{1,3}){3}$/;
/** An address as a status entry: IP literals as `ip`, names as `hostname`. */
export function loadBalancerEntry(address: string): LoadBalancerIngress {
  return ipv4.test(address) || address.includes(':') ? { ip: address } : { hostname: address };
}

/**
 * The status each served Ingress should carry: the listen address of every virtual service it owns a part of.
 * `defaultAddress` stands in for listeners planned on the profile's default address: one address (HAProxy's
 * `address`, LoadMaster's `defaultAddress`) or several (the addresses of vTM's default traffic IP group, as read
 * back); null or empty: unknown, skipped.
 */
export function ingressStatusTargets(
  desired: DesiredState,
  defaultAddress: string | readonly string[] | null,
): IngressStatusTarget[] {
  const defaults =
    defaultAddress === null ? [] : typeof defaultAddress === 'string' ? [defaultAddress] : defaultAddress;
  const byRef = new Map<string, { ref: ObjectRef; addresses: Set<string> }>();
  for (const vs of desired.virtualServices) {
    const addresses = (vs.address.kind === 'default' ? defaults : [vs.address.ip]).filter((a) => a !== '');
    if (addresses.length === 0) continue;
    for (const owner of vs.owners) {
      if (owner.kind !== 'Ingress') continue;
      const key = refKey(owner);
      const slot = byRef.get(key) ?? { ref: owner, addresses: new Set<string>() };
      for (const a of addresses) slot.addresses.add(a);
      byRef.set(key, slot);
    }
  }
  return [...byRef.entries()]
    .sort(([a], [b]) => compareCodeUnits(a, b))
    .map(([, v]) => ({ ref: v.ref, entries: [...v.addresses].sort(compareCodeUnits).map(loadBalancerEntry) }));
}

const entryKey = (e: LoadBalancerIngress): string => `${e.ip ?? ''}|${e.hostname ?? ''}`;

/**
 * Merges this appliance's entries into an Ingress's current list: entries other appliances wrote stay, the
 * entries this appliance wrote before are replaced by `ours`. Null when nothing changes (no write needed).
 */
export function mergeLoadBalancerIngress(
  current: readonly LoadBalancerIngress[],
  previouslyOurs: readonly LoadBalancerIngress[],
  ours: readonly LoadBalancerIngress[],
): LoadBalancerIngress[] | null {
  const drop = new Set([...previouslyOurs, ...ours].map(entryKey));
  const kept = current.filter((e) => !drop.has(entryKey(e)));
  const merged = [...kept, ...ours].map((e) => ({
    ...(e.ip === undefined ? {} : { ip: e.ip }),
    ...(e.hostname === undefined ? {} : { hostname: e.hostname }),
  }));
  merged.sort((a, b) => compareCodeUnits(entryKey(a), entryKey(b)));
  const same = merged.length === current.length && merged.every((e, i) => entryKey(e) === entryKey(current[i]!));
  return same ? null : merged;
}
