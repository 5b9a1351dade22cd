import type { DesiredState, ObjectRef } from '@portolan/desired-state';
import type { ObjectChange } from './archived-change.ts';

/** The Kubernetes objects a desired state names, as lookup sets (for deciding which archived events mattered). */
export interface ReferencedObjects {
  /** `cluster/Kind/namespace/name`. */
  readonly objects: ReadonlySet<string>;
  /** `cluster/namespace/service`: EndpointSlices labelled with one of these matter. */
  readonly services: ReadonlySet<string>;
  /** `cluster/node`: Nodes that hold members (NodePort mode). */
  readonly nodes: ReadonlySet<string>;
}

const key = (r: Pick<ObjectRef, 'cluster' | 'kind' | 'namespace' | 'name'>): string =>
  `${r.cluster}/${r.kind}/${r.namespace}/${r.name}`;

/** Every object a desired state names: owners, route sources, pool Services, certificate Secrets, bindings, conditions. */
export function referencedObjects(...states: readonly DesiredState[]): ReferencedObjects {
  const objects = new Set<string>();
  const services = new Set<string>();
  const nodes = new Set<string>();
  const service = (r: ObjectRef): void => {
    objects.add(key(r));
    services.add(`${r.cluster}/${r.namespace}/${r.name}`);
  };
  for (const d of states) {
    for (const vs of d.virtualServices) {
      vs.owners.forEach((o) => objects.add(key(o)));
      vs.routes.forEach((r) => objects.add(key(r.source)));
    }
    for (const p of d.pools) {
      p.services.forEach(service);
      for (const m of p.members) if (m.node !== '') nodes.add(`${m.cluster}/${m.node}`);
    }
    d.certificates.forEach((c) => objects.add(key(c.secret)));
    for (const b of d.bindings) {
      service(b.service);
      for (const m of b.members) if (m.node !== '') nodes.add(`${m.cluster}/${m.node}`);
    }
    d.conditions.forEach((c) => objects.add(key(c.object)));
  }
  return { objects, services, nodes };
}

/** True when an archived change touches something the referenced objects name. */
export function isRelevant(change: ObjectChange, refs: ReferencedObjects): boolean {
  if (refs.objects.has(key(change))) return true;
  if (change.kind === 'EndpointSlice' && change.service !== null)
    return refs.services.has(`${change.cluster}/${change.namespace}/${change.service}`);
  if (change.kind === 'Node') return refs.nodes.has(`${change.cluster}/${change.name}`);
  return false;
}
