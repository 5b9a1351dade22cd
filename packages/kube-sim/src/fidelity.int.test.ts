// Fidelity suite, requests: the simulator against the API-concepts rules clients depend on
// (https://kubernetes.io/docs/reference/using-api/api-concepts/): authentication and errors, create and update
// with optimistic concurrency, the patch kinds, and selectors.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { cm, cmPath, fidelityFixture } from './testing/fidelity-fixture.ts';
import { call } from './testing/sim-client.ts';

const fx = fidelityFixture();

describe('authentication and errors', () => {
  it('refuses requests without the bearer token with a 401 Status', async () => {
    const res = await call(fx.sim, 'GET', cmPath(), { token: null });
    assert.equal(res.status, 401);
    assert.deepEqual(res.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Unauthorized',
      reason: 'Unauthorized',
      code: 401,
    });
  });
  it('answers a missing object with a NotFound Status naming the resource', async () => {
    const res = await call(fx.sim, 'GET', '/apis/networking.k8s.io/v1/namespaces/fid/ingresses/nope');
    assert.equal(res.status, 404);
    assert.equal(res.body.message, 'ingresses.networking.k8s.io "nope" not found');
    assert.deepEqual(res.body.details, { name: 'nope', group: 'networking.k8s.io', kind: 'ingresses' });
  });
  it('reports the configured version and serves discovery for every resource', async () => {
    assert.equal((await call(fx.sim, 'GET', '/version')).body.gitVersion, 'v1.31.0');
    const core = await call(fx.sim, 'GET', '/api/v1');
    assert.deepEqual(
      core.body.resources.map((r: { name: string }) => r.name),
      [
        'namespaces',
        'namespaces/status',
        'nodes',
        'nodes/status',
        'services',
        'services/status',
        'secrets',
        'configmaps',
        'events',
        'serviceaccounts',
      ],
    );
    const groups = await call(fx.sim, 'GET', '/apis');
    assert.deepEqual(
      groups.body.groups.map((g: { name: string }) => g.name),
      [
        'discovery.k8s.io',
        'networking.k8s.io',
        'coordination.k8s.io',
        'rbac.authorization.k8s.io',
        'gateway.networking.k8s.io',
        'authentication.k8s.io',
      ],
    );
  });
});

// This describe only groups short, independent cases of one API rule: its length is their number.
describe('create, update and concurrency', () => {
  it('assigns uid, creationTimestamp and a global resourceVersion; 409 on a duplicate name', async () => {
    const first = await call(fx.sim, 'POST', cmPath(), { body: cm('a') });
    assert.equal(first.status, 201);
    assert.match(first.body.metadata.uid, /^[0-9a-f-]{36}$/);
    assert.match(first.body.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(first.body.metadata.resourceVersion, String(fx.sim.store.resourceVersion));
    const dup = await call(fx.sim, 'POST', cmPath(), { body: cm('a') });
    assert.equal(dup.status, 409);
    assert.equal(dup.body.reason, 'AlreadyExists');
  });
  it('rejects an update carrying a stale resourceVersion with 409 Conflict, accepts the current one', async () => {
    const created = (await call(fx.sim, 'POST', cmPath(), { body: cm('conflict') })).body;
    const ok = await call(fx.sim, 'PUT', `${cmPath()}/conflict`, { body: { ...created, data: { k: 'v2' } } });
    assert.equal(ok.status, 200);
    const stale = await call(fx.sim, 'PUT', `${cmPath()}/conflict`, { body: { ...created, data: { k: 'v3' } } });
    assert.equal(stale.status, 409);
    assert.equal(stale.body.reason, 'Conflict');
    assert.match(stale.body.message, /the object has been modified/);
    assert.deepEqual(
      fx.sim.objects.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'fid', name: 'conflict' })?.['data'],
      { k: 'v2' },
    );
  });
  it('skips a no-op update: same resourceVersion, no change log entry', async () => {
    const created = (await call(fx.sim, 'POST', cmPath(), { body: cm('noop') })).body;
    const before = fx.sim.changeLog.length;
    const again = await call(fx.sim, 'PUT', `${cmPath()}/noop`, { body: created });
    assert.equal(again.body.metadata.resourceVersion, created.metadata.resourceVersion);
    assert.equal(fx.sim.changeLog.length, before);
  });
  it('bumps generation on Ingress spec changes only, and /status changes only status', async () => {
    const ing = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'web', namespace: 'fid' },
      spec: {
        rules: [
          {
            host: 'a.example.com',
            http: {
              paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }],
            },
          },
        ],
      },
    };
    const path = '/apis/networking.k8s.io/v1/namespaces/fid/ingresses';
    const created = (await call(fx.sim, 'POST', path, { body: ing })).body;
    assert.equal(created.metadata.generation, 1);
    const labelled = await call(fx.sim, 'PATCH', `${path}/web`, {
      body: { metadata: { labels: { x: 'y' } } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(labelled.body.metadata.generation, 1);
    const status = { loadBalancer: { ingress: [{ ip: '192.0.2.1' }] } };
    const viaMain = await call(fx.sim, 'PATCH', `${path}/web`, {
      body: { status, spec: { ingressClassName: 'x' } },
      contentType: 'application/merge-patch+json',
    });
    assert.deepEqual(viaMain.body.status, { loadBalancer: {} });
    assert.equal(viaMain.body.metadata.generation, 2);
    const viaStatus = await call(fx.sim, 'PATCH', `${path}/web/status`, {
      body: { status, spec: { ingressClassName: 'ignored' } },
      contentType: 'application/merge-patch+json',
    });
    assert.deepEqual(viaStatus.body.status, status);
    assert.equal(viaStatus.body.spec.ingressClassName, 'x');
    assert.equal(viaStatus.body.metadata.generation, 2);
  });
  it('validates Ingress path types like the API server (422 with the field)', async () => {
    const bad = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'bad' },
      spec: {
        rules: [
          {
            host: 'a.example.com',
            http: { paths: [{ path: '/', backend: { service: { name: 'web', port: { number: 80 } } } }] },
          },
        ],
      },
    };
    const res = await call(fx.sim, 'POST', '/apis/networking.k8s.io/v1/namespaces/fid/ingresses', { body: bad });
    assert.equal(res.status, 422);
    assert.equal(res.body.details.causes[0].field, 'spec.rules[0].http.paths[0].pathType');
  });
});

// This describe only groups short, independent cases of one API rule: its length is their number.
describe('patch kinds', () => {
  const svcPath = '/api/v1/namespaces/fid/services';
  it('merges Service ports by port number under a strategic merge patch (with $setElementOrder)', async () => {
    await call(fx.sim, 'POST', svcPath, {
      body: {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'smp' },
        spec: {
          selector: { app: 'x' },
          ports: [
            { name: 'http', port: 80, targetPort: 8080 },
            { name: 'https', port: 443 },
          ],
        },
      },
    });
    const patch = {
      spec: {
        $setElementOrder: undefined,
        '$setElementOrder/ports': [{ port: 443 }, { port: 80 }],
        ports: [{ port: 80, targetPort: 9090 }],
      },
    };
    const res = await call(fx.sim, 'PATCH', `${svcPath}/smp`, {
      body: patch,
      contentType: 'application/strategic-merge-patch+json',
    });
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.spec.ports.map((p: { port: number; targetPort: number }) => [p.port, p.targetPort]),
      [
        [443, 443],
        [80, 9090],
      ],
    );
    assert.match(res.body.spec.clusterIP, /^10\.96\./);
  });
  it('replaces lists wholesale under a JSON merge patch, and deletes keys set to null', async () => {
    const res = await call(fx.sim, 'PATCH', `${svcPath}/smp`, {
      body: { metadata: { labels: { a: '1' } }, spec: { ports: [{ port: 8443 }], selector: null } },
      contentType: 'application/merge-patch+json',
    });
    assert.deepEqual(
      res.body.spec.ports.map((p: { port: number }) => p.port),
      [8443],
    );
    assert.equal(res.body.spec.selector, undefined);
  });
  it('applies JSON patch operations atomically; a failed test op changes nothing', async () => {
    const ok = await call(fx.sim, 'PATCH', `${svcPath}/smp`, {
      body: [
        { op: 'add', path: '/metadata/labels/b', value: '2' },
        { op: 'replace', path: '/spec/ports/0/port', value: 9443 },
      ],
      contentType: 'application/json-patch+json',
    });
    assert.equal(ok.body.metadata.labels.b, '2');
    assert.equal(ok.body.spec.ports[0].port, 9443);
    const failed = await call(fx.sim, 'PATCH', `${svcPath}/smp`, {
      body: [
        { op: 'remove', path: '/metadata/labels/a' },
        { op: 'test', path: '/spec/type', value: 'NodePort' },
      ],
      contentType: 'application/json-patch+json',
    });
    assert.equal(failed.status, 422);
    assert.equal((await call(fx.sim, 'GET', `${svcPath}/smp`)).body.metadata.labels.a, '1');
  });
  it('rejects a patch pinning an old resourceVersion with 409', async () => {
    const res = await call(fx.sim, 'PATCH', `${svcPath}/smp`, {
      body: { metadata: { resourceVersion: '1' } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(res.status, 409);
  });
});

// This describe only groups short, independent cases of one API rule: its length is their number.
describe('selectors', () => {
  before(async () => {
    fx.sim.objects.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'sel' } });
    for (const [name, labels] of [
      ['s1', { app: 'web', tier: 'fe' }],
      ['s2', { app: 'web' }],
      ['s3', { app: 'db', tier: 'be' }],
      ['s4', {}],
    ] as const) {
      fx.sim.objects.create(cm(name, labels, 'sel'));
    }
  });
  const cases: [string, string[]][] = [
    ['app=web', ['s1', 's2']],
    ['app==web', ['s1', 's2']],
    ['app!=web', ['s3', 's4']],
    ['app in (db, web),tier', ['s1', 's3']],
    ['tier notin (fe)', ['s2', 's3', 's4']],
    ['tier', ['s1', 's3']],
    ['!tier', ['s2', 's4']],
  ];
  for (const [selector, want] of cases) {
    it(`labelSelector ${selector}`, async () => {
      const res = await call(fx.sim, 'GET', `${cmPath('sel')}?labelSelector=${encodeURIComponent(selector)}`);
      assert.deepEqual(
        res.body.items.map((i: { metadata: { name: string } }) => i.metadata.name),
        want,
      );
    });
  }
  it('field selectors: metadata.name, secret type, event involvedObject; unsupported labels are 400', async () => {
    assert.deepEqual(
      (await call(fx.sim, 'GET', `${cmPath('sel')}?fieldSelector=metadata.name!=s1`)).body.items.map(
        (i: { metadata: { name: string } }) => i.metadata.name,
      ),
      ['s2', 's3', 's4'],
    );
    fx.sim.objects.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'tls', namespace: 'sel' },
      type: 'kubernetes.io/tls',
      data: { 'tls.crt': 'eA==', 'tls.key': 'eA==' },
    });
    fx.sim.objects.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'plain', namespace: 'sel' },
      stringData: { a: 'b' },
    });
    const tls = await call(
      fx.sim,
      'GET',
      `/api/v1/secrets?fieldSelector=${encodeURIComponent('type=kubernetes.io/tls')}`,
    );
    assert.deepEqual(
      tls.body.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      ['tls'],
    );
    fx.sim.objects.create({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e1', namespace: 'sel' },
      involvedObject: { kind: 'Ingress', name: 'web', namespace: 'sel' },
      reason: 'Synced',
    });
    const events = await call(
      fx.sim,
      'GET',
      `/api/v1/namespaces/sel/events?fieldSelector=${encodeURIComponent('involvedObject.kind=Ingress,involvedObject.name=web')}`,
    );
    assert.deepEqual(
      events.body.items.map((i: { reason: string }) => i.reason),
      ['Synced'],
    );
    const bad = await call(fx.sim, 'GET', `${cmPath('sel')}?fieldSelector=data.k=x`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.message, 'field label not supported: data.k');
  });
});
