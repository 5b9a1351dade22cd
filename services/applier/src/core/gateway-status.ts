import type { DesiredState, JsonObject, JsonValue, ObjectRef } from '@portolan/desired-state';
import { canonicalJson } from '@portolan/desired-state';

/** The status one Gateway API object should carry, as this appliance's plan gives it. */
export interface GatewayStatusTarget {
  readonly ref: ObjectRef;
  readonly status: JsonObject;
  /** Route parents of these controllers are removed (a route this appliance no longer serves). */
  readonly withdraw?: readonly string[];
}

const STATUS_KINDS = new Set(['GatewayClass', 'Gateway', 'HTTPRoute', 'TLSRoute']);

/**
 * The planned status of every Gateway API object in the desired state (ObjectCondition.status), with each
 * Gateway's addresses: those of the virtual services it owns, the default address standing for the appliance's
 * default (`defaults`, as for Ingress status).
 */
export function gatewayStatusTargets(desired: DesiredState, defaults: readonly string[]): GatewayStatusTarget[] {
  const addresses = new Map<string, Set<string>>();
  for (const vs of desired.virtualServices)
    for (const owner of vs.owners) {
      if (owner.kind !== 'Gateway') continue;
      const set = addresses.get(key(owner)) ?? new Set<string>();
      for (const a of vs.address.kind === 'default' ? defaults : [vs.address.ip]) if (a !== '') set.add(a);
      addresses.set(key(owner), set);
    }
  const out: GatewayStatusTarget[] = [];
  for (const c of desired.conditions) {
    if (c.status === undefined || !STATUS_KINDS.has(c.object.kind)) continue;
    if (c.object.kind !== 'Gateway') {
      out.push({ ref: c.object, status: c.status });
      continue;
    }
    const list = [...(addresses.get(key(c.object)) ?? [])].sort();
    const typed = list.map((value) => ({ type: /^[\d.]+$|:/.test(value) ? 'IPAddress' : 'Hostname', value }));
    out.push({ ref: c.object, status: { ...c.status, addresses: typed } });
  }
  return out;
}

const key = (r: ObjectRef): string => `${r.cluster}/${r.kind}/${r.namespace}/${r.name}`;

type Condition = { readonly type?: JsonValue; readonly status?: JsonValue; readonly lastTransitionTime?: JsonValue };

/**
 * Stamps lastTransitionTime on planned conditions: a condition whose status is what the object already says keeps
 * its time; a new or changed one gets `now` (RFC 3339, as the API's metav1.Time).
 */
function stamp(planned: JsonValue | undefined, current: JsonValue | undefined, now: string): JsonObject[] {
  const before = new Map(
    (Array.isArray(current) ? (current as Condition[]) : []).map((c) => [String(c.type), c] as const),
  );
  return (Array.isArray(planned) ? (planned as JsonObject[]) : []).map((c) => {
    const was = before.get(String(c['type']));
    const time =
      was !== undefined && was.status === c['status'] && typeof was.lastTransitionTime === 'string'
        ? was.lastTransitionTime
        : now;
    return { ...c, lastTransitionTime: time };
  });
}

const field = (o: JsonValue | undefined, name: string): JsonValue | undefined =>
  typeof o === 'object' && o !== null && !Array.isArray(o) ? (o as JsonObject)[name] : undefined;

/**
 * The status to write on an object, or null when it already carries it. GatewayClass and Gateway statuses are this
 * controller's alone; a route's `parents` are shared by every controller its parentRefs reach, so the entries of
 * other controllers are kept and only ours (by controllerName) replaced.
 */
export function nextGatewayStatus(
  kind: string,
  current: JsonObject | undefined,
  planned: JsonObject,
  now: string,
  withdraw: readonly string[] = [],
): JsonObject | null {
  let next: JsonObject;
  if (kind === 'HTTPRoute' || kind === 'TLSRoute') {
    const ours = planned['parents'] as JsonObject[];
    const mine = new Set<JsonValue | undefined>([...ours.map((p) => p['controllerName']), ...withdraw]);
    const currentParents = (Array.isArray(field(current, 'parents')) ? field(current, 'parents') : []) as JsonObject[];
    const others = currentParents.filter((p) => !mine.has(p['controllerName']!));
    const parents = ours.map((p) => {
      const was = currentParents.find(
        (c) =>
          c['controllerName'] === p['controllerName'] &&
          canonicalJson(c['parentRef']) === canonicalJson(p['parentRef']),
      );
      return { ...p, conditions: stamp(p['conditions'], field(was, 'conditions'), now) };
    });
    next = { ...current, parents: [...others, ...parents] };
  } else {
    next = { ...current, ...planned, conditions: stamp(planned['conditions'], field(current, 'conditions'), now) };
    if (kind === 'Gateway') {
      const was = (Array.isArray(field(current, 'listeners')) ? field(current, 'listeners') : []) as JsonObject[];
      next = {
        ...next,
        listeners: ((planned['listeners'] ?? []) as JsonObject[]).map((l) => ({
          ...l,
          conditions: stamp(
            l['conditions'],
            field(
              was.find((w) => w['name'] === l['name']),
              'conditions',
            ),
            now,
          ),
        })),
      };
    }
  }
  return current !== undefined && canonicalJson(current) === canonicalJson(next) ? null : next;
}
