import type {
  DesiredState,
  ObjectCondition,
  ObjectRef,
  PoolMember,
  Route,
  VirtualService,
} from '@portolan/desired-state';
import { compareCodeUnits } from '@portolan/desired-state';

/**
 * The canonical order of every array in a DesiredState, as sort keys whose code-unit order is the documented
 * order. Assembly sorts by them and snapshot decoding re-sorts by them, so both agree byte for byte.
 */

/** (cluster, kind, namespace, name) as one sortable string. */
export function refKey(ref: ObjectRef): string {
  return `${ref.cluster}\u0000${ref.kind}\u0000${ref.namespace}\u0000${ref.name}`;
}

/** Route precedence: exact hosts, then wildcards, then any host; per host longer paths first, Exact before Prefix. */
export function routeSortKey(r: Pick<Route, 'host' | 'path' | 'match' | 'order'>): string {
  const rank = r.host === '' ? 2 : r.host.startsWith('*.') ? 1 : 0;
  // An HTTPRoute's routes come in the order the planner computed for their host.
  if (r.order !== undefined) return `${rank}\u0000${r.host}\u0000~${String(r.order).padStart(6, '0')}`;
  const length = String(99999 - r.path.length).padStart(5, '0');
  return `${rank}\u0000${r.host}\u0000${length}\u0000${r.match === 'Exact' ? 0 : 1}\u0000${r.path}`;
}

/** Members by (address, port), then cluster (the same address in two clusters is two members). */
export function memberSortKey(m: Pick<PoolMember, 'address' | 'port' | 'cluster'>): string {
  return `${m.address}\u0000${String(m.port).padStart(5, '0')}\u0000${m.cluster}`;
}

/** Conditions by object, then type, reason and message. */
export function conditionSortKey(c: ObjectCondition): string {
  return `${refKey(c.object)}\u0000${c.type}\u0000${c.reason}\u0000${c.message}`;
}

function byKey<T>(items: readonly T[], key: (t: T) => string): T[] {
  return items
    .map((item) => ({ item, k: key(item) }))
    .sort((a, b) => compareCodeUnits(a.k, b.k))
    .map((x) => x.item);
}

/** Sorts the routes of a virtual service into precedence order. */
export function sortRoutes(routes: readonly Route[]): Route[] {
  return byKey(routes, routeSortKey);
}

/** Sorts pool members canonically. */
export function sortMembers(members: readonly PoolMember[]): PoolMember[] {
  return byKey(members, memberSortKey);
}

/** Sorts object refs by (cluster, kind, namespace, name). */
export function sortRefs(refs: readonly ObjectRef[]): ObjectRef[] {
  return byKey(refs, refKey);
}

/** Sorts conditions canonically. */
export function sortConditions(conditions: readonly ObjectCondition[]): ObjectCondition[] {
  return byKey(conditions, conditionSortKey);
}

/** Orders a virtual service's certificate names: the default (first) stays first, the rest by name. */
export function orderCertificates(defaultName: string | null, others: Iterable<string>): string[] {
  const rest = [...new Set(others)].filter((n) => n !== defaultName).sort(compareCodeUnits);
  return defaultName === null ? rest : [defaultName, ...rest];
}

/** Returns a DesiredState with every array in canonical order (owners keep their creation order). */
export function canonicalizeDesiredState(d: DesiredState): DesiredState {
  const vs = (v: VirtualService): VirtualService => ({
    ...v,
    routes: sortRoutes(v.routes),
    certificates: orderCertificates(v.certificates[0] ?? null, v.certificates),
  });
  return {
    appliance: d.appliance,
    driver: d.driver,
    virtualServices: byKey(d.virtualServices.map(vs), (v) => v.name),
    pools: byKey(
      d.pools.map((p) => ({ ...p, members: sortMembers(p.members), services: sortRefs(p.services) })),
      (p) => p.name,
    ),
    certificates: byKey(
      d.certificates.map((c) => ({ ...c, hosts: [...c.hosts].sort(compareCodeUnits) })),
      (c) => c.name,
    ),
    bindings: byKey(
      d.bindings.map((b) => ({ ...b, members: sortMembers(b.members) })),
      (b) => b.target,
    ),
    conditions: sortConditions(d.conditions),
  };
}
