// Trimming the kinds beyond Ingress's: Gateway API objects keep metadata and spec as JSON, Namespaces their labels.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { trimObject } from './trim-object.ts';

const httpRoute = {
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'HTTPRoute',
  metadata: {
    name: 'canary',
    namespace: 'shop',
    uid: 'r1',
    resourceVersion: '7',
    generation: 2,
    creationTimestamp: '2026-01-02T03:04:05Z',
    managedFields: [{ manager: 'kubectl' }],
    annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' },
  },
  spec: {
    parentRefs: [{ name: 'shared', sectionName: 'https', group: 'gateway.networking.k8s.io', kind: 'Gateway' }],
    hostnames: ['shop.example.com'],
    rules: [
      {
        matches: [{ path: { value: '/', type: 'PathPrefix' }, headers: [{ name: 'x-canary', value: 'yes' }] }],
        backendRefs: [
          { name: 'web-v1', port: 80, weight: 90 },
          { name: 'web-v2', port: 80, weight: 10 },
        ],
      },
    ],
  },
  status: { parents: [{ controllerName: 'portolan.io/gateway', conditions: [] }] },
};

test('a Gateway API object keeps its metadata and whole spec; loses status, managedFields and last-applied', () => {
  const r = trimObject('HTTPRoute', httpRoute);
  assert.ok(r.ok);
  assert.deepEqual(r.object.metadata, {
    name: 'canary',
    namespace: 'shop',
    uid: 'r1',
    resourceVersion: '7',
    generation: 2,
    creationTimestamp: '2026-01-02T03:04:05Z',
  });
  assert.deepEqual(r.object.spec, httpRoute.spec);
  assert.equal('status' in r.object, false);
});

test('a Gateway API spec with the same content in another key order trims to the same bytes', () => {
  const reordered = {
    ...httpRoute,
    spec: {
      rules: httpRoute.spec.rules.map((rule) => ({ backendRefs: rule.backendRefs, matches: rule.matches })),
      hostnames: httpRoute.spec.hostnames,
      parentRefs: httpRoute.spec.parentRefs.map(({ sectionName, name, kind, group }) => ({
        kind,
        group,
        sectionName,
        name,
      })),
    },
  };
  const a = trimObject('HTTPRoute', httpRoute);
  const b = trimObject('HTTPRoute', reordered);
  assert.ok(a.ok && b.ok);
  assert.equal(JSON.stringify(b.object), JSON.stringify(a.object));
});

test('a Gateway API spec keeps only JSON values, a `__proto__` key as data, and no more than 32 levels', () => {
  let deep: unknown = 'leaf';
  for (let i = 0; i < 40; i++) deep = { d: deep };
  const spec = JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
  Object.assign(spec, { n: Number.NaN, f: () => 1, u: undefined, ok: [1, 'a', true, null], deep });
  const r = trimObject('Gateway', { metadata: { name: 'g', namespace: 'infra' }, spec });
  assert.ok(r.ok);
  assert.deepEqual(Object.keys(r.object.spec), ['__proto__', 'deep', 'ok']);
  assert.deepEqual(r.object.spec['ok'], [1, 'a', true, null]);
  assert.equal(({} as Record<string, unknown>)['polluted'], undefined, 'no prototype was touched');
  let depth = 0;
  for (let v: unknown = r.object.spec['deep']; typeof v === 'object' && v !== null; v = (v as { d?: unknown }).d)
    depth++;
  assert.ok(depth < 32, `kept ${depth} levels`);
});

test('a GatewayClass is cluster-scoped; a Namespace keeps its labels and nothing else', () => {
  const gc = trimObject('GatewayClass', {
    metadata: { name: 'portolan', namespace: 'ignored' },
    spec: { controllerName: 'portolan.io/gateway' },
  });
  assert.ok(gc.ok);
  assert.equal(gc.object.metadata.namespace, '');
  assert.deepEqual(gc.object.spec, { controllerName: 'portolan.io/gateway' });
  const ns = trimObject('Namespace', {
    metadata: { name: 'shop', labels: { team: 'web' }, annotations: { note: 'x' } },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  });
  assert.ok(ns.ok);
  assert.deepEqual(ns.object, {
    kind: 'Namespace',
    metadata: { name: 'shop', namespace: '', labels: { team: 'web' } },
  });
});
