/**
 * Subject names and message ids (docs/architecture.md, "Contracts"). Subjects are namespaced by cluster and appliance; message ids
 * are pure functions of what was observed, so a republished observation is deduplicated by the broker.
 */

/** Lower-case kind token used in subjects, e.g. `endpointslice`. */
export type KindToken =
  | 'ingress'
  | 'ingressclass'
  | 'service'
  | 'endpointslice'
  | 'secret'
  | 'node'
  | 'namespace'
  | 'gatewayclass'
  | 'gateway'
  | 'httproute'
  | 'tlsroute'
  | 'referencegrant';

const token = /^[A-Za-z0-9_-]+$/;
function part(value: string, what: string): string {
  if (!token.test(value)) throw new RangeError(`${what} "${value}" cannot be used in a NATS subject`);
  return value;
}

/** `kube.<cluster>.<kind>`: one object's change. */
export const kubeEventSubject = (cluster: string, kind: KindToken): string =>
  `kube.${part(cluster, 'cluster')}.${kind}`;
/** `kube.<cluster>.<kind>.list`: the full-list marker after a (re)list. */
export const kubeListMarkerSubject = (cluster: string, kind: KindToken): string =>
  `kube.${part(cluster, 'cluster')}.${kind}.list`;
/** `kube.<cluster>.heartbeat`: watcher freshness. */
export const heartbeatSubject = (cluster: string): string => `kube.${part(cluster, 'cluster')}.heartbeat`;
/**
 * `kube._operator.approval`: an operator's approval of held removals. It rides in the kube stream so the planner
 * folds it in order with the observations (no cluster name starts with `_`, so it cannot collide with one).
 */
export const holdApprovalSubject = 'kube._operator.approval';
/** `kube._appliance.refused`: objects an appliance refused (the applier's bisection), folded by the planner in order. */
export const objectsRefusedSubject = 'kube._appliance.refused';
/** `kube._planner.selection-held`: Ingresses a fleet-config change would stop serving, held by the safety rule. */
export const selectionHeldSubject = 'kube._planner.selection-held';
/**
 * `control.<cluster>.relist`: the planner asks the cluster's watchers to list kinds again and republish them (its
 * state differs from theirs). Plain NATS, outside every stream: a lost request is asked again, and replay has none.
 */
export const relistRequestSubject = (cluster: string): string => `control.${part(cluster, 'cluster')}.relist`;
/** `plan.<appliance>`: a snapshot became head. */
export const planSubject = (appliance: string): string => `plan.${part(appliance, 'appliance')}`;
/** `apply.<appliance>`: an apply was recorded. */
export const applySubject = (appliance: string): string => `apply.${part(appliance, 'appliance')}`;
/** `apply.<appliance>.drift`: drift was observed. */
export const driftSubject = (appliance: string): string => `apply.${part(appliance, 'appliance')}.drift`;

/** Nats-Msg-Id of a KubeEvent: a pure function of (cluster, uid, resourceVersion, type). */
export const kubeEventMsgId = (cluster: string, uid: string, resourceVersion: string, type: string): string =>
  `ev:${cluster}:${uid}:${resourceVersion}:${type}`;
/** Nats-Msg-Id of a list-marker chunk: two lists at the same resourceVersion carry the same keys, so dedup is safe. */
export const kubeListMarkerMsgId = (
  cluster: string,
  kind: KindToken,
  listResourceVersion: string,
  chunkIndex: number,
  chunkCount: number,
): string => `lm:${cluster}:${kind}:${listResourceVersion}:${chunkIndex}/${chunkCount}`;
