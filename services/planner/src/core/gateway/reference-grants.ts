import type { ObjectReference, ReferenceGrantInput } from './gateway-types.ts';

/** The referrer of a cross-namespace reference: a Gateway using a Secret, a route using a backend. */
export interface Referrer {
  readonly group: string;
  readonly kind: string;
  readonly namespace: string;
}

/**
 * The ReferenceGrants of a cluster. A reference from one namespace to an object in another is allowed only when a
 * ReferenceGrant in the target's namespace names the referrer's group, kind and namespace in `from`, and the
 * target's group and kind (and its name, when the grant gives one) in `to`. References within one namespace need
 * no grant.
 */
export class ReferenceGrants {
  private readonly byNamespace = new Map<string, ReferenceGrantInput[]>();

  constructor(grants: readonly ReferenceGrantInput[]) {
    for (const g of grants) {
      const list = this.byNamespace.get(g.namespace) ?? [];
      list.push(g);
      this.byNamespace.set(g.namespace, list);
    }
  }

  /** Whether `from` may refer to `target` (whose namespace is already resolved, never ''). */
  permits(from: Referrer, target: ObjectReference): boolean {
    if (from.namespace === target.namespace) return true;
    for (const g of this.byNamespace.get(target.namespace) ?? []) {
      const fromOk = g.from.some(
        (f) => f.group === from.group && f.kind === from.kind && f.namespace === from.namespace,
      );
      const toOk = g.to.some(
        (t) => t.group === target.group && t.kind === target.kind && (t.name === '' || t.name === target.name),
      );
      if (fromOk && toOk) return true;
    }
    return false;
  }
}
