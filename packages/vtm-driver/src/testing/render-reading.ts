import assert from 'node:assert/strict';
import type { VtmRenderConfig } from '../core/render-vtm.ts';
import { vtmName } from '../core/vtm-names.ts';
import type { VtmObject, VtmObjects } from '../core/vtm-objects.ts';

// Reading a render in the renderVtm tests.

/** The render settings the tests use. */
export const config: VtmRenderConfig = {
  appliance: 'vtm',
  defaultTrafficIpGroup: 'Web-TIG',
  machines: ['tm-a', 'tm-b'],
};

/** The rendered object of a type and name (the test fails when there is none). */
export function find(out: VtmObjects, type: VtmObject['type'], name: string): VtmObject {
  const o = out.objects.find((x) => x.type === type && x.name === name);
  assert.ok(
    o !== undefined,
    `${type}/${name} rendered; have ${out.objects.map((x) => `${x.type}/${x.name}`).join(', ')}`,
  );
  return o;
}
/** An object's properties, loosely typed for reading. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests read loosely typed vTM properties
export function props(out: VtmObjects, type: VtmObject['type'], name: string): any {
  const o = find(out, type, name);
  assert.ok(o.type !== 'rules');
  return o.properties;
}
/** A rule's TrafficScript text. */
export function ruleText(out: VtmObjects, name: string): string {
  const o = find(out, 'rules', name);
  assert.ok(o.type === 'rules');
  return o.text;
}
/** Names of the objects the common fixtures render. */
export const VS = vtmName('vs', 'default.web');
export const ROUTE = vtmName('route', 'default.web');
export const POOL_A = vtmName('pool', 'default.a');
export const POOL_B = vtmName('pool', 'default.b');
