import type { Operation } from '@portolan/appliance-driver';
import type { JsonObject } from '@portolan/desired-state';
import { isSubset } from './deep-merge.ts';
import { writeOrder, type VtmObject, type VtmObjects } from './vtm-objects.ts';

/**
 * Ordered, minimal operations turning the observed (owned) objects into the desired ones. Writes go children
 * first (rules, monitors, persistence, SSL keys, pools, traffic IP groups, then virtual servers) so every name
 * an object refers to already exists; deletes follow, parents first, so nothing still in use is removed. An
 * object is written only when something it should say differs from what the appliance holds (read-back adds
 * defaults, so desired ⊆ observed means equal); a write carries the whole rendered object. A name held by an
 * object that is not ours is never written.
 */
export function diffVtm(rendered: VtmObjects, observed: VtmObjects): Operation[] {
  const desired = adoptExistingTrafficIpGroups(rendered, observed);
  const have = new Map(observed.objects.map((o) => [key(o), o]));
  const want = new Set(desired.objects.map(key));
  const foreign = new Set(observed.foreign ?? []);
  const writes: Operation[] = [];
  for (const type of writeOrder) {
    for (const object of desired.objects.filter((o) => o.type === type)) {
      const current = have.get(key(object));
      if (foreign.has(key(object)) || (current !== undefined && matches(object, current))) continue;
      writes.push({
        objectType: object.type,
        objectName: object.name,
        action: current === undefined ? 'create' : 'update',
        payload: payloadOf(object),
        summary: `${current === undefined ? 'create' : 'update'} ${object.type} ${object.name}`,
      });
    }
  }
  const deletes: Operation[] = [];
  for (const type of [...writeOrder].reverse()) {
    for (const object of observed.objects.filter((o) => o.type === type && !want.has(key(o)))) {
      deletes.push({
        objectType: object.type,
        objectName: object.name,
        action: 'delete',
        payload: null,
        summary: `delete ${object.type} ${object.name}`,
      });
    }
  }
  return [...writes, ...deletes];
}

/**
 * The vTM integration's documented shared-ip-address: "if a Traffic IP group with the specified address exists, it is used; otherwise
 * one is created". Our group for such an address is dropped and the virtual servers listen on the existing one.
 */
export function adoptExistingTrafficIpGroups(desired: VtmObjects, observed: VtmObjects): VtmObjects {
  const external = observed.externalTrafficIps ?? {};
  const renamed = new Map<string, string>();
  for (const o of desired.objects) {
    const existing =
      o.type === 'traffic_ip_groups' && o.adoptableIp !== undefined ? external[o.adoptableIp] : undefined;
    if (existing !== undefined) renamed.set(o.name, existing);
  }
  if (renamed.size === 0) return desired;
  const objects = desired.objects.flatMap((o): VtmObject[] => {
    if (o.type === 'traffic_ip_groups' && renamed.has(o.name)) return [];
    if (o.type !== 'virtual_servers') return [o];
    const basic = o.properties['basic'] as JsonObject;
    const listen = (basic['listen_on_traffic_ips'] as readonly string[]).map((n) => renamed.get(n) ?? n);
    return [{ ...o, properties: { ...o.properties, basic: { ...basic, listen_on_traffic_ips: listen } } }];
  });
  return { ...desired, objects };
}

function key(object: VtmObject): string {
  return `${object.type}/${object.name}`;
}

function matches(want: VtmObject, have: VtmObject): boolean {
  if (want.type === 'rules' || have.type === 'rules')
    return want.type === have.type && 'text' in want && 'text' in have && want.text === have.text;
  return isSubset(want.properties, have.properties);
}

/** The operation payload: `{properties}` for JSON objects (plus the Secret reference for keys), `{text}` for rules. */
function payloadOf(object: VtmObject): JsonObject {
  if (object.type === 'rules') return { text: object.text };
  if (object.secret === undefined) return { properties: object.properties };
  const { cluster, kind, namespace, name } = object.secret;
  return { properties: object.properties, secret: { cluster, kind, namespace, name } };
}
