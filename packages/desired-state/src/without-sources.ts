import type { DesiredState, ObjectRef } from './model.ts';

/** `cluster/kind/namespace/name`: one Kubernetes object, as a map key. */
export function objectRefKey(ref: ObjectRef): string {
  return `${ref.cluster}/${ref.kind}/${ref.namespace}/${ref.name}`;
}

/**
 * The Kubernetes objects a desired state's listeners are made of: the Ingresses behind routes and listeners, and
 * the Secrets behind certificates, each once, in a stable order. These are what a refused configuration is
 * narrowed down to when an appliance's own check refuses it.
 */
export function sourcesOf(desired: DesiredState): ObjectRef[] {
  const out = new Map<string, ObjectRef>();
  for (const vs of desired.virtualServices) {
    for (const o of vs.owners) out.set(objectRefKey(o), o);
    for (const r of vs.routes) out.set(objectRefKey(r.source), r.source);
  }
  for (const c of desired.certificates) out.set(objectRefKey(c.secret), c.secret);
  return [...out.values()].sort((a, b) => (objectRefKey(a) < objectRefKey(b) ? -1 : 1));
}

/**
 * The desired state without what some objects contribute: their routes, their share of listeners (a listener none
 * of whose owners is left goes), the certificates of dropped Secrets, and the pools nothing routes to any more.
 * Pure; the result shares every untouched object with `desired`.
 */
export function withoutSources(desired: DesiredState, drop: ReadonlySet<string>): DesiredState {
  if (drop.size === 0) return desired;
  const certificates = desired.certificates.filter((c) => !drop.has(objectRefKey(c.secret)));
  const kept = new Set(certificates.map((c) => c.name));
  const virtualServices = desired.virtualServices.flatMap((vs) => {
    const owners = vs.owners.filter((o) => !drop.has(objectRefKey(o)));
    if (vs.owners.length > 0 && owners.length === 0) return [];
    const routes = vs.routes.filter((r) => !drop.has(objectRefKey(r.source)));
    const certs = vs.certificates.filter((c) => kept.has(c));
    if (
      owners.length === vs.owners.length &&
      routes.length === vs.routes.length &&
      certs.length === vs.certificates.length
    )
      return [vs];
    return [{ ...vs, owners, routes, certificates: certs }];
  });
  const used = new Set<string>();
  for (const vs of virtualServices) {
    if (vs.defaultPool !== null) used.add(vs.defaultPool);
    for (const r of vs.routes) used.add(r.pool);
  }
  const pools = desired.pools.filter((p) => used.has(p.name));
  return { ...desired, virtualServices, certificates, pools };
}
