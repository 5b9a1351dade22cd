import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyJsonMergePatch } from './json-merge-patch.ts';
import { applyJsonPatch } from './json-patch.ts';
import { applyStrategicMergePatch } from './strategic-merge-patch.ts';

// This describe only groups short, independent cases of one concern: its length is their number.
describe('strategic merge patch', () => {
  const svc = {
    metadata: { finalizers: ['a'], labels: { x: '1' } },
    spec: {
      ports: [
        { port: 80, targetPort: 8080 },
        { port: 443, targetPort: 8443 },
      ],
      selector: { app: 'web' },
    },
  };
  const cases: { name: string; patch: unknown; kind?: string; want: unknown }[] = [
    {
      name: 'merges list items by merge key',
      patch: { spec: { ports: [{ port: 443, targetPort: 9443 }] } },
      want: {
        ...svc,
        spec: {
          ...svc.spec,
          ports: [
            { port: 80, targetPort: 8080 },
            { port: 443, targetPort: 9443 },
          ],
        },
      },
    },
    {
      name: 'deletes a keyed item with $patch: delete',
      patch: { spec: { ports: [{ port: 80, $patch: 'delete' }] } },
      want: { ...svc, spec: { ...svc.spec, ports: [{ port: 443, targetPort: 8443 }] } },
    },
    {
      name: 'orders by $setElementOrder',
      patch: { spec: { '$setElementOrder/ports': [{ port: 443 }, { port: 80 }] } },
      want: {
        ...svc,
        spec: {
          ...svc.spec,
          ports: [
            { port: 443, targetPort: 8443 },
            { port: 80, targetPort: 8080 },
          ],
        },
      },
    },
    {
      name: 'unions primitive merge lists (finalizers)',
      patch: { metadata: { finalizers: ['b'] } },
      want: { ...svc, metadata: { ...svc.metadata, finalizers: ['a', 'b'] } },
    },
    {
      name: 'deletes map keys set to null',
      patch: { spec: { selector: null } },
      want: { ...svc, spec: { ports: svc.spec.ports } },
    },
    {
      name: 'replaces a map with $patch: replace',
      patch: { metadata: { labels: { y: '2', $patch: 'replace' } } },
      want: { ...svc, metadata: { ...svc.metadata, labels: { y: '2' } } },
    },
    {
      name: 'replaces lists of kinds without merge rules',
      kind: 'Ingress',
      patch: { spec: { ports: [{ port: 1 }] } },
      want: { ...svc, spec: { ...svc.spec, ports: [{ port: 1 }] } },
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(applyStrategicMergePatch(svc, c.patch, c.kind ?? 'Service'), c.want));
  }
});

describe('JSON merge patch and JSON patch', () => {
  it('merge patch replaces arrays and removes null keys', () => {
    assert.deepEqual(applyJsonMergePatch({ a: [1, 2], b: { c: 1, d: 2 } }, { a: [3], b: { c: null } }), {
      a: [3],
      b: { d: 2 },
    });
  });
  it('JSON patch applies add/remove/replace/move/copy/test and escapes ~1', () => {
    const result = applyJsonPatch({ a: { 'x/y': 1 }, list: [1, 2] }, [
      { op: 'add', path: '/list/-', value: 3 },
      { op: 'replace', path: '/a/x~1y', value: 2 },
      { op: 'copy', from: '/a', path: '/b' },
      { op: 'move', from: '/list/0', path: '/first' },
      { op: 'remove', path: '/a' },
      { op: 'test', path: '/first', value: 1 },
    ]);
    assert.deepEqual(result, { ok: true, value: { list: [2, 3], b: { 'x/y': 2 }, first: 1 } });
  });
  it('JSON patch fails as a whole on a failed test or a missing path', () => {
    assert.equal(applyJsonPatch({ a: 1 }, [{ op: 'test', path: '/a', value: 2 }]).ok, false);
    assert.equal(applyJsonPatch({ a: 1 }, [{ op: 'remove', path: '/b' }]).ok, false);
  });
});
