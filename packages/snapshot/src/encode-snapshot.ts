import type { DesiredState, ObjectCondition, ObjectRef } from '@portolan/desired-state';
import { refKey } from './canonical-order.ts';
import type { EncodedSnapshot } from './encoded-snapshot.ts';
import { SnapshotEncoder } from './snapshot-encoder.ts';
import { CURRENT_LAYOUT, type SnapshotLayout } from './snapshot-layout.ts';

/** Encodes a whole desired state from scratch: the same pieces an incremental encoder reaching this state emits. */
export function encodeSnapshot(desired: DesiredState, layout: SnapshotLayout = CURRENT_LAYOUT): EncodedSnapshot {
  const e = new SnapshotEncoder(desired.appliance, desired.driver, layout);
  for (const v of desired.virtualServices) e.setVirtualService(v);
  for (const p of desired.pools) e.setPool(p);
  for (const c of desired.certificates) e.setCertificate(c);
  for (const b of desired.bindings) e.setBinding(b);
  const byObject = new Map<string, { object: ObjectRef; list: ObjectCondition[] }>();
  for (const c of desired.conditions) {
    const key = refKey(c.object);
    const entry = byObject.get(key) ?? { object: c.object, list: [] };
    entry.list.push(c);
    byObject.set(key, entry);
  }
  for (const { object, list } of byObject.values()) e.setConditions(object, list);
  return e.commit();
}
