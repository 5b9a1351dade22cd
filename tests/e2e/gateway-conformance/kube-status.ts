import assert from 'node:assert/strict';
import { eventually } from '../eventually.ts';
import type { Pipeline } from '../pipeline-harness.ts';
import type { Condition } from './index.ts';

/** Reading objects and their status through kubectl, and upstream's condition predicates. */

export interface KubeCondition {
  readonly type: string;
  readonly status: string;
  readonly reason: string;
  readonly observedGeneration?: number;
}

export interface KubeObject {
  readonly metadata: {
    readonly name: string;
    readonly generation?: number;
    readonly annotations?: Record<string, string>;
  };
  readonly spec?: Record<string, unknown>;
  readonly status?: Record<string, unknown>;
}

const GROUPS: Readonly<Record<string, string>> = {
  GatewayClass: 'gateway.networking.k8s.io',
  Gateway: 'gateway.networking.k8s.io',
  HTTPRoute: 'gateway.networking.k8s.io',
  ReferenceGrant: 'gateway.networking.k8s.io',
  EndpointSlice: 'discovery.k8s.io',
};

/** kubectl's name for a kind, qualified by its group so no other resource of that name is meant. */
export function resourceOf(kind: string): string {
  const group = GROUPS[kind];
  return group === undefined ? kind.toLowerCase() : `${kind.toLowerCase()}.${group}`;
}

/** The object, or null when it does not exist. */
export async function getObject(
  p: Pipeline,
  kind: string,
  name: string,
  namespace?: string,
): Promise<KubeObject | null> {
  const args = ['get', `${resourceOf(kind)}/${name}`, '-o', 'json', ...(namespace ? ['-n', namespace] : [])];
  try {
    return JSON.parse(await p.kubectl(args)) as KubeObject;
  } catch (error) {
    if (error instanceof Error && /NotFound|not found/.test(error.message)) return null;
    throw error;
  }
}

/** Like getObject, but the object must exist. */
export async function mustGet(p: Pipeline, kind: string, name: string, namespace?: string): Promise<KubeObject> {
  const o = await getObject(p, kind, name, namespace);
  assert.ok(o !== null, `${kind} ${namespace ?? ''}/${name} does not exist`);
  return o;
}

/** Upstream's findConditionInList: type equal, status and reason equal when given. */
export function hasCondition(conditions: readonly KubeCondition[] | undefined, want: Condition): boolean {
  return (conditions ?? []).some(
    (c) =>
      c.type === want.type &&
      (want.status === undefined || c.status === want.status) &&
      (want.reason === undefined || c.reason === want.reason),
  );
}

export function describeConditions(conditions: readonly KubeCondition[] | undefined): string {
  return JSON.stringify((conditions ?? []).map((c) => `${c.type}=${c.status}/${c.reason}@${c.observedGeneration}`));
}

/** Every condition's observedGeneration is the object's generation. */
export function assertLatest(
  conditions: readonly KubeCondition[] | undefined,
  generation: number | undefined,
  what: string,
) {
  for (const c of conditions ?? [])
    assert.equal(
      c.observedGeneration,
      generation,
      `${what}: condition ${c.type} is of generation ${c.observedGeneration}, not ${generation}`,
    );
}

export function assertCondition(conditions: readonly KubeCondition[] | undefined, want: Condition, what: string) {
  assert.ok(hasCondition(conditions, want), `${what}: no ${JSON.stringify(want)} in ${describeConditions(conditions)}`);
}

/** How long a runner waits: upstream's timeouts, each capped by `capMs` when set. */
export interface Waits {
  readonly capMs?: number;
}

/** Upstream's polling: `check` until it holds, for `timeoutMs` (capped), every half second. */
export function poll<T>(
  p: Pipeline,
  waits: Waits,
  what: string,
  timeoutMs: number,
  check: () => Promise<T>,
): Promise<T> {
  const cap = waits.capMs ?? Infinity;
  return eventually(what, check, { timeoutMs: Math.min(timeoutMs, cap), everyMs: 500 });
}

/** Upstream's timeouts (conformance/utils/config/timeout.go). */
export const TIMEOUTS = {
  route: 60_000,
  listener: 60_000,
  gateway: 180_000,
  gatewayClass: 60_000,
  namespaces: 300_000,
  consistency: 30_000,
} as const;

export interface RouteParent {
  readonly parentRef: { group?: string; kind?: string; name: string; namespace?: string; sectionName?: string };
  readonly controllerName: string;
  readonly conditions?: KubeCondition[];
}

export function routeParents(route: KubeObject): RouteParent[] {
  return ((route.status?.parents ?? []) as RouteParent[]).slice();
}

export interface ListenerStatus {
  readonly name: string;
  readonly attachedRoutes: number;
  readonly supportedKinds?: { group?: string; kind: string }[];
  readonly conditions?: KubeCondition[];
}

export function listenerStatuses(gateway: KubeObject): ListenerStatus[] {
  return ((gateway.status?.listeners ?? []) as ListenerStatus[]).slice();
}

export function conditionsOf(o: KubeObject): KubeCondition[] {
  return (o.status?.conditions ?? []) as KubeCondition[];
}
