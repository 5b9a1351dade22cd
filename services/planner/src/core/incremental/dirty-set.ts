/** An object identity as dirty tracking carries it. */
export interface DirtyIngress {
  readonly cluster: string;
  readonly namespace: string;
  readonly name: string;
}

/** What changed since the last plan, as the engines consume it. */
export interface DirtySet {
  /** Ingresses whose intent may have changed (the Ingress, its class or a Secret it names), by world key string. */
  readonly ingresses: ReadonlyMap<string, DirtyIngress>;
  /** Services whose spec or endpoints changed: `cluster/namespace/name`. */
  readonly services: ReadonlySet<string>;
  /** Clusters whose Nodes changed (NodePort mode). */
  readonly nodeClusters: ReadonlySet<string>;
  /** Clusters where a Gateway API object, a Namespace or a Secret changed: their Gateway translation is redone. */
  readonly gatewayClusters: ReadonlySet<string>;
}

/** The key of a Service in dirty sets and indexes. */
export function serviceKey(cluster: string, namespace: string, name: string): string {
  return `${cluster}/${namespace}/${name}`;
}
