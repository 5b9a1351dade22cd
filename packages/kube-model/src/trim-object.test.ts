import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { trimObject } from './trim-object.ts';
import { KUBE_KINDS } from './objects.ts';

const ingress = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: {
    name: 'web',
    namespace: 'shop',
    uid: 'u1',
    resourceVersion: '42',
    generation: 3,
    creationTimestamp: '2026-01-02T03:04:05Z',
    managedFields: [{ manager: 'kubectl', fieldsV1: {} }],
    labels: { app: 'web' },
    annotations: {
      'kubectl.kubernetes.io/last-applied-configuration': '{"huge":true}',
      'vtm.pulsesecure.net/port': '8080',
    },
  },
  spec: {
    ingressClassName: 'vtm',
    rules: [
      {
        host: 'shop.example.com',
        http: {
          paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }],
        },
      },
    ],
    tls: [{ hosts: ['shop.example.com'], secretName: 'shop-tls' }],
  },
  status: { loadBalancer: { ingress: [{ ip: '10.0.0.1' }] } },
};

test('an Ingress keeps identity, labels, annotations and spec; loses managedFields, status and last-applied', () => {
  const r = trimObject('Ingress', ingress);
  assert.ok(r.ok);
  assert.deepEqual(r.object, {
    kind: 'Ingress',
    metadata: {
      name: 'web',
      namespace: 'shop',
      uid: 'u1',
      resourceVersion: '42',
      generation: 3,
      creationTimestamp: '2026-01-02T03:04:05Z',
      labels: { app: 'web' },
      annotations: { 'vtm.pulsesecure.net/port': '8080' },
    },
    spec: {
      ingressClassName: 'vtm',
      rules: [
        {
          host: 'shop.example.com',
          http: {
            paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }],
          },
        },
      ],
      tls: [{ hosts: ['shop.example.com'], secretName: 'shop-tls' }],
    },
  });
});

test('an EndpointSlice keeps endpoints, ports, addressType and only the service-name label', () => {
  const r = trimObject('EndpointSlice', {
    metadata: {
      name: 'web-abc',
      namespace: 'shop',
      labels: { 'kubernetes.io/service-name': 'web', 'endpointslice.kubernetes.io/managed-by': 'x' },
      annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': '2026-01-01T00:00:00Z' },
    },
    addressType: 'IPv4',
    endpoints: [
      {
        addresses: ['10.1.0.1'],
        conditions: { ready: true, serving: true, terminating: false },
        nodeName: 'n1',
        targetRef: { kind: 'Pod' },
        zone: 'a',
      },
    ],
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  });
  assert.ok(r.ok);
  assert.deepEqual(r.object, {
    kind: 'EndpointSlice',
    metadata: { name: 'web-abc', namespace: 'shop', labels: { 'kubernetes.io/service-name': 'web' } },
    addressType: 'IPv4',
    endpoints: [
      { addresses: ['10.1.0.1'], conditions: { ready: true, serving: true, terminating: false }, nodeName: 'n1' },
    ],
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  });
});

test("an empty EndpointSlice, its endpoints null (Go's nil slice) or absent, trims to no endpoints, not none", () => {
  const base = { metadata: { name: 'web-v6', namespace: 'shop' }, addressType: 'IPv6', ports: [{ port: 3000 }] };
  const previous = trimObject('EndpointSlice', { ...base, endpoints: [{ addresses: ['fd00::1'] }] });
  assert.ok(previous.ok);
  const held = previous.object;
  for (const endpoints of [null, undefined, 'junk']) {
    const r = trimObject('EndpointSlice', { ...base, endpoints });
    assert.ok(r.ok);
    assert.deepEqual(r.object.endpoints, [], `endpoints ${String(endpoints)}`);
    const after = trimObject('EndpointSlice', { ...base, endpoints }, held);
    assert.ok(after.ok);
    assert.deepEqual(after.object.endpoints, [], `endpoints ${String(endpoints)}, after a slice with one`);
  }
});

test('a list keeps its well-formed items in order and drops the rest, leaving no holes', () => {
  const r = trimObject('EndpointSlice', {
    metadata: { name: 'web-abc', namespace: 'shop' },
    addressType: 'IPv4',
    endpoints: [null, { addresses: [7, '10.1.0.1', null, '10.1.0.2', { ip: 'x' }] }, 'bad', { addresses: [] }],
    ports: [{ name: 'http', port: 8080 }, 3, { port: 9090 }],
  });
  assert.ok(r.ok);
  const slice = r.object;
  assert.deepEqual(slice.endpoints, [{ addresses: ['10.1.0.1', '10.1.0.2'] }, { addresses: [] }]);
  assert.deepEqual(slice.ports, [{ name: 'http', port: 8080 }, { port: 9090 }]);
  for (const list of [slice.endpoints, slice.ports, slice.endpoints[0]!.addresses])
    assert.equal(Object.keys(list).length, list.length, 'no holes');
});

test('a Node keeps its addresses and the Ready condition status only', () => {
  const r = trimObject('Node', {
    metadata: { name: 'n1', labels: { zone: 'a' }, annotations: { 'volumes.kubernetes.io/x': 'y' } },
    status: {
      addresses: [
        { type: 'InternalIP', address: '192.168.1.10' },
        { type: 'Hostname', address: 'n1' },
      ],
      conditions: [
        { type: 'MemoryPressure', status: 'False' },
        { type: 'Ready', status: 'True', lastHeartbeatTime: 'x' },
      ],
      images: [{ names: ['big'] }],
    },
  });
  assert.ok(r.ok);
  assert.deepEqual(r.object, {
    kind: 'Node',
    metadata: { name: 'n1', namespace: '' },
    status: {
      addresses: [
        { type: 'InternalIP', address: '192.168.1.10' },
        { type: 'Hostname', address: 'n1' },
      ],
      ready: 'True',
    },
  });
});

test('a Secret never keeps plaintext data: only the sealed box and fingerprint the watcher put in place of data', () => {
  const plain = trimObject('Secret', {
    metadata: { name: 's', namespace: 'n' },
    type: 'kubernetes.io/tls',
    data: { 'tls.crt': 'Q0VSVA==', 'tls.key': 'S0VZ' },
  });
  assert.ok(plain.ok);
  assert.deepEqual(plain.object, {
    kind: 'Secret',
    metadata: { name: 's', namespace: 'n' },
    type: 'kubernetes.io/tls',
    sealed: null,
    fingerprint: null,
  });
  assert.doesNotMatch(JSON.stringify(plain.object), /S0VZ|Q0VSVA/);

  const sealed = { keyId: 'k1', iv: 'aXY=', ciphertext: 'Y3Q=', tag: 'dGFn' };
  const r = trimObject('Secret', {
    metadata: { name: 's', namespace: 'n' },
    type: 'kubernetes.io/tls',
    data: { sealed, fingerprint: 'ab'.repeat(32) },
  });
  assert.ok(r.ok);
  assert.deepEqual(r.object, {
    kind: 'Secret',
    metadata: { name: 's', namespace: 'n' },
    type: 'kubernetes.io/tls',
    sealed,
    fingerprint: 'ab'.repeat(32),
  });
});

test('cluster-scoped kinds have namespace "" even when the input names one', () => {
  const r = trimObject('IngressClass', {
    metadata: { name: 'c', namespace: 'x', annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } },
    spec: { controller: 'portolan.dev/ingress-controller', parameters: { kind: 'X' } },
  });
  assert.ok(r.ok);
  assert.deepEqual(r.object, {
    kind: 'IngressClass',
    metadata: { name: 'c', namespace: '', annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } },
    spec: { controller: 'portolan.dev/ingress-controller' },
  });
});

test('an object without a name is refused with a reason, not an exception', () => {
  assert.deepEqual(trimObject('Service', { metadata: {} }), {
    ok: false,
    reason: 'MissingName',
    message: 'Service has no metadata.name',
  });
  assert.equal(trimObject('Service', 'nope').ok, false);
});

test('a "__proto__" annotation key stays data and never changes a prototype', () => {
  const input = JSON.parse(
    '{"metadata":{"name":"a","namespace":"b","annotations":{"__proto__":"x","ok":"y"}},"spec":{}}',
  );
  const r = trimObject('Ingress', input);
  assert.ok(r.ok);
  assert.equal(Object.getPrototypeOf(r.object.metadata.annotations), Object.prototype);
  assert.equal(Object.getOwnPropertyDescriptor(r.object.metadata.annotations, '__proto__')?.value, 'x');
});

test('property: trimming never throws and is idempotent, for every kind and any JSON input', () => {
  fc.assert(
    fc.property(fc.constantFrom(...KUBE_KINDS), fc.jsonValue(), fc.jsonValue(), (kind, metadataExtra, body) => {
      const input = {
        ...(typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}),
        metadata: { name: 'x', namespace: 'y', extra: metadataExtra },
      };
      const once = trimObject(kind, input);
      assert.ok(once.ok);
      const twice = trimObject(kind, once.object);
      assert.ok(twice.ok);
      assert.deepEqual(twice.object, once.object);
      trimObject(kind, body); // arbitrary JSON, not even an object: must return, not throw
    }),
    { numRuns: 300 },
  );
});

const endpointArb = fc.oneof(
  fc.record(
    {
      addresses: fc.oneof(
        fc.array(fc.constantFrom('10.0.0.1', '10.0.0.2', '10.0.0.3'), { maxLength: 2 }),
        fc.array(fc.jsonValue(), { maxLength: 2 }),
      ),
      conditions: fc.oneof(
        fc.record({ ready: fc.boolean(), serving: fc.boolean(), terminating: fc.boolean() }, { requiredKeys: [] }),
        fc.jsonValue(),
      ),
      nodeName: fc.oneof(fc.constantFrom('n1', 'n2'), fc.jsonValue()),
      zone: fc.string(),
    },
    { requiredKeys: [] },
  ),
  fc.jsonValue(),
);
const sliceArb = fc.record({
  metadata: fc.constant({ name: 's', namespace: 'ns', labels: { 'kubernetes.io/service-name': 'web' } }),
  addressType: fc.constantFrom('IPv4', 'IPv6'),
  endpoints: fc.oneof(fc.array(endpointArb, { maxLength: 4 }), fc.jsonValue()),
  ports: fc.oneof(
    fc.array(
      fc.record(
        { name: fc.constantFrom('http', 'https'), port: fc.constantFrom(80, 8080), protocol: fc.constant('TCP') },
        { requiredKeys: [] },
      ),
      { maxLength: 2 },
    ),
    fc.jsonValue(),
  ),
});

test('property: trimming a slice against the version it replaces gives the same object as trimming alone, sharing only equal endpoints', () => {
  fc.assert(
    fc.property(sliceArb, sliceArb, (before, after) => {
      const previous = trimObject('EndpointSlice', before);
      assert.ok(previous.ok);
      const alone = trimObject('EndpointSlice', after);
      const shared = trimObject('EndpointSlice', after, previous.object);
      assert.ok(alone.ok && shared.ok);
      assert.deepEqual(shared.object, alone.object);
      assert.equal(
        JSON.stringify(shared.object),
        JSON.stringify(alone.object),
        'same key order, so the same bytes wherever it is encoded',
      );
      shared.object.endpoints?.forEach((e, i) => {
        if (previous.object.endpoints?.includes(e)) assert.deepEqual(e, alone.object.endpoints[i]);
      });
    }),
    { numRuns: 500 },
  );
});

test('a slice whose one endpoint changed keeps the other endpoint objects of the version it replaces', () => {
  const slice = (third: string) => ({
    metadata: { name: 's', namespace: 'ns' },
    addressType: 'IPv4',
    endpoints: ['10.0.0.1', '10.0.0.2', third].map((a) => ({ addresses: [a], conditions: { ready: true } })),
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  });
  const v1 = trimObject('EndpointSlice', slice('10.0.0.3'));
  assert.ok(v1.ok);
  const v2 = trimObject('EndpointSlice', slice('10.0.0.4'), v1.object);
  assert.ok(v2.ok);
  assert.equal(v2.object.endpoints[0], v1.object.endpoints[0]);
  assert.equal(v2.object.endpoints[1], v1.object.endpoints[1]);
  assert.notEqual(v2.object.endpoints[2], v1.object.endpoints[2]);
  assert.deepEqual(v2.object.endpoints[2], { addresses: ['10.0.0.4'], conditions: { ready: true } });
  assert.equal(v2.object.ports, v1.object.ports);
});

test('an endpoint keeps exactly its boolean conditions, in API order, as one shared frozen object per combination', () => {
  const values = [undefined, false, true, 'yes', 1, null];
  const seen = new Map<string, unknown>();
  for (const ready of values)
    for (const serving of values)
      for (const terminating of values) {
        const raw: Record<string, unknown> = {};
        if (ready !== undefined) raw['ready'] = ready;
        if (serving !== undefined) raw['serving'] = serving;
        if (terminating !== undefined) raw['terminating'] = terminating;
        const slice = {
          metadata: { name: 's', namespace: 'ns' },
          addressType: 'IPv4',
          endpoints: [
            { addresses: ['10.0.0.1'], conditions: raw },
            { addresses: ['10.0.0.2'], conditions: { ...raw } },
          ],
          ports: [],
        };
        const r = trimObject('EndpointSlice', slice);
        assert.ok(r.ok);
        const [a, b] = r.object.endpoints;
        const expected = Object.fromEntries(Object.entries(raw).filter(([, v]) => typeof v === 'boolean'));
        assert.deepEqual(a!.conditions, expected);
        assert.deepEqual(
          Object.keys(a!.conditions!),
          Object.keys(expected),
          'keys in ready, serving, terminating order',
        );
        assert.equal(a!.conditions, b!.conditions, 'equal conditions are one object');
        assert.ok(Object.isFrozen(a!.conditions));
        const key = JSON.stringify(expected);
        if (seen.has(key)) assert.equal(seen.get(key), a!.conditions);
        seen.set(key, a!.conditions);
      }
  assert.equal(seen.size, 27);
});
