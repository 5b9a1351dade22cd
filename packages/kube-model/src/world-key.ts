import type { KubeKind } from './objects.ts';

/** Identity of one object in the planner's world: unique across the fleet. */
export interface WorldKey {
  readonly cluster: string;
  readonly kind: KubeKind;
  /** '' for cluster-scoped kinds. */
  readonly namespace: string;
  readonly name: string;
}

/**
 * The key of an object within one (cluster, kind): `namespace/name`, or `name` when cluster-scoped.
 * List markers carry these.
 */
export function objectKey(namespace: string, name: string): string {
  return namespace === '' ? name : `${namespace}/${name}`;
}

/** Splits an `objectKey` back into namespace and name. */
export function parseObjectKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/**
 * A world key as one string, usable as a Map key: `cluster/kind/namespace/name`. Kubernetes names cannot
 * contain '/', so the encoding is unambiguous; its code-unit order is the (cluster, kind, namespace, name) order.
 */
export function worldKeyString(key: WorldKey): string {
  return `${key.cluster}/${key.kind}/${key.namespace}/${key.name}`;
}

/** Orders world keys by (cluster, kind, namespace, name), by UTF-16 code units (locale-independent). */
export function compareWorldKeys(a: WorldKey, b: WorldKey): number {
  return cmp(a.cluster, b.cluster) || cmp(a.kind, b.kind) || cmp(a.namespace, b.namespace) || cmp(a.name, b.name);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
