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
export function diffVtm(desired: VtmObjects, observed: VtmObjects): Operation[] {
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
      deletes.push({ objectType: object.type, objectName: object.name, action: 'delete', payload: null, summary: `delete ${object.type} ${object.name}` });
    }
  }
  return [...writes, ...deletes];
}

function key(object: VtmObject): string {
  return `${object.type}/${object.name}`;
}

function matches(want: VtmObject, have: VtmObject): boolean {
  if (want.type === 'rules' || have.type === 'rules') return want.type === have.type && 'text' in want && 'text' in have && want.text === have.text;
  return isSubset(want.properties, have.properties);
}

/** The operation payload: `{properties}` for JSON objects (plus the Secret reference for keys), `{text}` for rules. */
function payloadOf(object: VtmObject): JsonObject {
  if (object.type === 'rules') return { text: object.text };
  if (object.secret === undefined) return { properties: object.properties };
  const { cluster, kind, namespace, name } = object.secret;
  return { properties: object.properties, secret: { cluster, kind, namespace, name } };
}
