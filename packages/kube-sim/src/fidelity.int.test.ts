// Fidelity suite: the simulator against the API-concepts rules clients depend on
// (https://kubernetes.io/docs/reference/using-api/api-concepts/).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startKubeSim, type KubeSim } from './index.ts';
import { call, openWatch } from './testing/sim-client.ts';

let sim: KubeSim;
const cm = (name: string, labels: Record<string, string> = {}, ns = 'fid') => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: ns, labels },
  data: { k: name },
});
const cmPath = (ns = 'fid') => `/api/v1/namespaces/${ns}/configmaps`;

before(async () => {
  sim = await startKubeSim({ bookmarkIntervalMs: 100 });
  sim.objects.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fid' } });
});
after(() => sim.close());

describe('authentication and errors', () => {
  it('refuses requests without the bearer token with a 401 Status', async () => {
    const res = await call(sim, 'GET', cmPath(), { token: null });
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
    const res = await call(sim, 'GET', '/apis/networking.k8s.io/v1/namespaces/fid/ingresses/nope');
    assert.equal(res.status, 404);
    assert.equal(res.body.message, 'ingresses.networking.k8s.io "nope" not found');
    assert.deepEqual(res.body.details, { name: 'nope', group: 'networking.k8s.io', kind: 'ingresses' });
  });
  it('reports the configured version and serves discovery for every resource', async () => {
    assert.equal((await call(sim, 'GET', '/version')).body.gitVersion, 'v1.31.0');
    const core = await call(sim, 'GET', '/api/v1');
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
      ],
    );
    const groups = await call(sim, 'GET', '/apis');
    assert.deepEqual(
      groups.body.groups.map((g: { name: string }) => g.name),
      ['discovery.k8s.io', 'networking.k8s.io', 'coordination.k8s.io'],
    );
  });
});

describe('create, update and concurrency', () => {
  it('assigns uid, creationTimestamp and a global resourceVersion; 409 on a duplicate name', async () => {
    const first = await call(sim, 'POST', cmPath(), { body: cm('a') });
    assert.equal(first.status, 201);
    assert.match(first.body.metadata.uid, /^[0-9a-f-]{36}$/);
    assert.match(first.body.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(first.body.metadata.resourceVersion, String(sim.store.resourceVersion));
    const dup = await call(sim, 'POST', cmPath(), { body: cm('a') });
    assert.equal(dup.status, 409);
    assert.equal(dup.body.reason, 'AlreadyExists');
  });
  it('rejects an update carrying a stale resourceVersion with 409 Conflict, accepts the current one', async () => {
    const created = (await call(sim, 'POST', cmPath(), { body: cm('conflict') })).body;
    const ok = await call(sim, 'PUT', `${cmPath()}/conflict`, { body: { ...created, data: { k: 'v2' } } });
    assert.equal(ok.status, 200);
    const stale = await call(sim, 'PUT', `${cmPath()}/conflict`, { body: { ...created, data: { k: 'v3' } } });
    assert.equal(stale.status, 409);
    assert.equal(stale.body.reason, 'Conflict');
    assert.match(stale.body.message, /the object has been modified/);
    assert.deepEqual(
      sim.objects.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'fid', name: 'conflict' })?.['data'],
      { k: 'v2' },
    );
  });
  it('skips a no-op update: same resourceVersion, no change log entry', async () => {
    const created = (await call(sim, 'POST', cmPath(), { body: cm('noop') })).body;
    const before = sim.changeLog.length;
    const again = await call(sim, 'PUT', `${cmPath()}/noop`, { body: created });
    assert.equal(again.body.metadata.resourceVersion, created.metadata.resourceVersion);
    assert.equal(sim.changeLog.length, before);
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
    const created = (await call(sim, 'POST', path, { body: ing })).body;
    assert.equal(created.metadata.generation, 1);
    const labelled = await call(sim, 'PATCH', `${path}/web`, {
      body: { metadata: { labels: { x: 'y' } } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(labelled.body.metadata.generation, 1);
    const status = { loadBalancer: { ingress: [{ ip: '192.0.2.1' }] } };
    const viaMain = await call(sim, 'PATCH', `${path}/web`, {
      body: { status, spec: { ingressClassName: 'x' } },
      contentType: 'application/merge-patch+json',
    });
    assert.deepEqual(viaMain.body.status, { loadBalancer: {} });
    assert.equal(viaMain.body.metadata.generation, 2);
    const viaStatus = await call(sim, 'PATCH', `${path}/web/status`, {
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
    const res = await call(sim, 'POST', '/apis/networking.k8s.io/v1/namespaces/fid/ingresses', { body: bad });
    assert.equal(res.status, 422);
    assert.equal(res.body.details.causes[0].field, 'spec.rules[0].http.paths[0].pathType');
  });
});

describe('patch kinds', () => {
  const svcPath = '/api/v1/namespaces/fid/services';
  it('merges Service ports by port number under a strategic merge patch (with $setElementOrder)', async () => {
    await call(sim, 'POST', svcPath, {
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
    const res = await call(sim, 'PATCH', `${svcPath}/smp`, {
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
    const res = await call(sim, 'PATCH', `${svcPath}/smp`, {
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
    const ok = await call(sim, 'PATCH', `${svcPath}/smp`, {
      body: [
        { op: 'add', path: '/metadata/labels/b', value: '2' },
        { op: 'replace', path: '/spec/ports/0/port', value: 9443 },
      ],
      contentType: 'application/json-patch+json',
    });
    assert.equal(ok.body.metadata.labels.b, '2');
    assert.equal(ok.body.spec.ports[0].port, 9443);
    const failed = await call(sim, 'PATCH', `${svcPath}/smp`, {
      body: [
        { op: 'remove', path: '/metadata/labels/a' },
        { op: 'test', path: '/spec/type', value: 'NodePort' },
      ],
      contentType: 'application/json-patch+json',
    });
    assert.equal(failed.status, 422);
    assert.equal((await call(sim, 'GET', `${svcPath}/smp`)).body.metadata.labels.a, '1');
  });
  it('rejects a patch pinning an old resourceVersion with 409', async () => {
    const res = await call(sim, 'PATCH', `${svcPath}/smp`, {
      body: { metadata: { resourceVersion: '1' } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(res.status, 409);
  });
});

describe('selectors', () => {
  before(async () => {
    sim.objects.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'sel' } });
    for (const [name, labels] of [
      ['s1', { app: 'web', tier: 'fe' }],
      ['s2', { app: 'web' }],
      ['s3', { app: 'db', tier: 'be' }],
      ['s4', {}],
    ] as const) {
      sim.objects.create(cm(name, labels, 'sel'));
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
      const res = await call(sim, 'GET', `${cmPath('sel')}?labelSelector=${encodeURIComponent(selector)}`);
      assert.deepEqual(
        res.body.items.map((i: { metadata: { name: string } }) => i.metadata.name),
        want,
      );
    });
  }
  it('field selectors: metadata.name, secret type, event involvedObject; unsupported labels are 400', async () => {
    assert.deepEqual(
      (await call(sim, 'GET', `${cmPath('sel')}?fieldSelector=metadata.name!=s1`)).body.items.map(
        (i: { metadata: { name: string } }) => i.metadata.name,
      ),
      ['s2', 's3', 's4'],
    );
    sim.objects.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'tls', namespace: 'sel' },
      type: 'kubernetes.io/tls',
      data: { 'tls.crt': 'eA==', 'tls.key': 'eA==' },
    });
    sim.objects.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'plain', namespace: 'sel' },
      stringData: { a: 'b' },
    });
    const tls = await call(sim, 'GET', `/api/v1/secrets?fieldSelector=${encodeURIComponent('type=kubernetes.io/tls')}`);
    assert.deepEqual(
      tls.body.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      ['tls'],
    );
    sim.objects.create({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e1', namespace: 'sel' },
      involvedObject: { kind: 'Ingress', name: 'web', namespace: 'sel' },
      reason: 'Synced',
    });
    const events = await call(
      sim,
      'GET',
      `/api/v1/namespaces/sel/events?fieldSelector=${encodeURIComponent('involvedObject.kind=Ingress,involvedObject.name=web')}`,
    );
    assert.deepEqual(
      events.body.items.map((i: { reason: string }) => i.reason),
      ['Synced'],
    );
    const bad = await call(sim, 'GET', `${cmPath('sel')}?fieldSelector=data.k=x`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.message, 'field label not supported: data.k');
  });
});

describe('list and pagination', () => {
  before(() => {
    sim.objects.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'page' } });
    for (const n of ['p3', 'p1', 'p5', 'p2', 'p4']) sim.objects.create(cm(n, {}, 'page'));
  });
  const names = (body: { items: { metadata: { name: string } }[] }) => body.items.map((i) => i.metadata.name);
  it('lists in key order with the list resourceVersion; items carry no kind/apiVersion (like typed lists)', async () => {
    const res = await call(sim, 'GET', cmPath('page'));
    assert.equal(res.body.kind, 'ConfigMapList');
    assert.deepEqual(names(res.body), ['p1', 'p2', 'p3', 'p4', 'p5']);
    assert.equal(res.body.metadata.resourceVersion, String(sim.store.resourceVersion));
    assert.equal(res.body.items[0].kind, undefined);
  });
  it('pages with limit/continue over one consistent snapshot, with remainingItemCount', async () => {
    const first = await call(sim, 'GET', `${cmPath('page')}?limit=2`);
    assert.deepEqual(names(first.body), ['p1', 'p2']);
    assert.equal(first.body.metadata.remainingItemCount, 3);
    sim.objects.create(cm('p0', {}, 'page'));
    sim.objects.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'page', name: 'p4' });
    const second = await call(sim, 'GET', `${cmPath('page')}?limit=2&continue=${first.body.metadata.continue}`);
    assert.deepEqual(names(second.body), ['p3', 'p4']);
    assert.equal(second.body.metadata.resourceVersion, first.body.metadata.resourceVersion);
    const third = await call(sim, 'GET', `${cmPath('page')}?limit=2&continue=${second.body.metadata.continue}`);
    assert.deepEqual(names(third.body), ['p5']);
    assert.equal(third.body.metadata.continue, undefined);
  });
  it('answers an expired continue token with 410 Expired and an inconsistent-continue token', async () => {
    const first = await call(sim, 'GET', `${cmPath('page')}?limit=2`);
    assert.deepEqual(names(first.body), ['p0', 'p1']);
    sim.objects.create(cm('p9', {}, 'page'));
    sim.faults.compactHistory();
    const expired = await call(sim, 'GET', `${cmPath('page')}?limit=2&continue=${first.body.metadata.continue}`);
    assert.equal(expired.status, 410);
    assert.equal(expired.body.reason, 'Expired');
    assert.equal(typeof expired.body.metadata.continue, 'string');
    const resumed = await call(sim, 'GET', `${cmPath('page')}?limit=10&continue=${expired.body.metadata.continue}`);
    assert.deepEqual(names(resumed.body), ['p2', 'p3', 'p5', 'p9']);
  });
  it('serves resourceVersionMatch=Exact from history, 410 once compacted', async () => {
    const rv = sim.store.resourceVersion;
    sim.objects.create(cm('exact', {}, 'page'));
    const exact = await call(sim, 'GET', `${cmPath('page')}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
    assert.equal(names(exact.body).includes('exact'), false);
    sim.faults.compactHistory();
    assert.equal(
      (await call(sim, 'GET', `${cmPath('page')}?resourceVersion=${rv}&resourceVersionMatch=Exact`)).status,
      410,
    );
  });
});

describe('watch', () => {
  before(() => sim.objects.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'w' } }));
  it('replays changes after a resourceVersion in order, then streams live ones (DELETED carries the delete RV)', async () => {
    const start = sim.store.resourceVersion;
    const a = sim.objects.create(cm('wa', {}, 'w'));
    sim.objects.patch(
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'w', name: 'wa' },
      'application/merge-patch+json',
      { data: { k: 'changed' } },
    );
    const watch = openWatch(sim, `${cmPath('w')}?watch=true&resourceVersion=${start}`);
    await watch.waitFor((l) => l.length >= 2);
    sim.objects.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'w', name: 'wa' });
    await watch.waitFor((l) => l.length >= 3);
    watch.close();
    assert.deepEqual(
      watch.lines.map((l) => l.type),
      ['ADDED', 'MODIFIED', 'DELETED'],
    );
    const last = watch.lines[2] as { object: { metadata: { resourceVersion: string; uid: string } } };
    assert.equal(last.object.metadata.resourceVersion, String(sim.store.resourceVersion));
    assert.equal(last.object.metadata.uid, a.metadata?.uid);
  });
  it('sends the current state as ADDED when no resourceVersion is given', async () => {
    sim.objects.create(cm('w1', {}, 'w'));
    const watch = openWatch(sim, `${cmPath('w')}?watch=1`);
    await watch.waitFor((l) => l.length >= 1);
    watch.close();
    assert.deepEqual(
      watch.lines.map((l) => [l.type, 'object' in l ? l.object.metadata.name : '']),
      [['ADDED', 'w1']],
    );
  });
  it('turns label changes into ADDED/DELETED for a selector-filtered watch', async () => {
    const start = sim.store.resourceVersion;
    sim.objects.create(cm('lab', { team: 'a' }, 'w'));
    sim.objects.patch(
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'w', name: 'lab' },
      'application/merge-patch+json',
      { metadata: { labels: { team: 'b' } } },
    );
    sim.objects.patch(
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'w', name: 'lab' },
      'application/merge-patch+json',
      { metadata: { labels: { team: 'a' } } },
    );
    const watch = openWatch(sim, `${cmPath('w')}?watch=true&resourceVersion=${start}&labelSelector=team%3Da`);
    await watch.waitFor((l) => l.length >= 3);
    watch.close();
    assert.deepEqual(
      watch.lines.map((l) => l.type),
      ['ADDED', 'DELETED', 'ADDED'],
    );
  });
  it('answers a watch from a compacted resourceVersion with an in-stream ERROR 410 and ends it', async () => {
    const old = sim.store.resourceVersion;
    sim.objects.create(cm('gone', {}, 'w'));
    sim.faults.compactHistory();
    const watch = openWatch(sim, `${cmPath('w')}?watch=true&resourceVersion=${old}`);
    assert.equal(await watch.status, 200);
    await watch.ended;
    assert.equal(watch.lines.length, 1);
    const line = watch.lines[0] as { type: string; object: { kind: string; code: number; reason: string } };
    assert.deepEqual(
      [line.type, line.object.kind, line.object.code, line.object.reason],
      ['ERROR', 'Status', 410, 'Expired'],
    );
  });
  it('sends BOOKMARKs with the current resourceVersion only when allowWatchBookmarks is set', async () => {
    const rv = sim.store.resourceVersion;
    const withBookmarks = openWatch(sim, `${cmPath('w')}?watch=true&resourceVersion=${rv}&allowWatchBookmarks=true`);
    const without = openWatch(sim, `${cmPath('w')}?watch=true&resourceVersion=${rv}`);
    await withBookmarks.waitFor((l) => l.filter((x) => x.type === 'BOOKMARK').length >= 2);
    withBookmarks.close();
    without.close();
    const bookmark = withBookmarks.lines[0] as {
      object: { kind: string; apiVersion: string; metadata: { resourceVersion: string } };
    };
    assert.deepEqual(
      [bookmark.object.kind, bookmark.object.apiVersion, bookmark.object.metadata.resourceVersion],
      ['ConfigMap', 'v1', String(rv)],
    );
    assert.deepEqual(without.lines, []);
  });
  it('ends the stream after timeoutSeconds', async () => {
    const started = Date.now();
    const watch = openWatch(
      sim,
      `${cmPath('w')}?watch=true&resourceVersion=${sim.store.resourceVersion}&timeoutSeconds=1`,
    );
    await watch.ended;
    assert.ok(Date.now() - started >= 900);
  });
  it('sendInitialEvents streams the state then a BOOKMARK marked initial-events-end', async () => {
    const watch = openWatch(
      sim,
      `${cmPath('w')}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
    );
    await watch.waitFor((l) => l.some((x) => x.type === 'BOOKMARK'));
    watch.close();
    const types = watch.lines.map((l) => l.type);
    assert.equal(types[types.length - 1], 'BOOKMARK');
    assert.ok(types.slice(0, -1).every((t) => t === 'ADDED') && types.length > 1);
    const end = watch.lines[types.length - 1] as { object: { metadata: { annotations: Record<string, string> } } };
    assert.equal(end.object.metadata.annotations['k8s.io/initial-events-end'], 'true');
  });
});

describe('namespaces, limits and faults', () => {
  it('deleting a namespace deletes its objects (DELETED events in the change log) and then itself', async () => {
    sim.objects.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'doomed' } });
    sim.objects.create(cm('x', {}, 'doomed'));
    sim.objects.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'doomed' } });
    const from = sim.changeLog.length;
    const res = await call(sim, 'DELETE', '/api/v1/namespaces/doomed');
    assert.equal(res.body.status.phase, 'Terminating');
    assert.deepEqual(
      sim.changeLog.slice(from).map((e) => `${e.type} ${e.kind} ${e.name}`),
      ['MODIFIED Namespace doomed', 'DELETED Secret s', 'DELETED ConfigMap x', 'DELETED Namespace doomed'],
    );
    assert.equal((await call(sim, 'GET', cmPath('doomed'))).body.items.length, 0);
    assert.equal((await call(sim, 'POST', cmPath('doomed'), { body: cm('y', {}, 'doomed') })).status, 404);
  });
  it('refuses objects over 1.5 MiB with 413 like etcd, ConfigMaps over 1 MiB with 422, bodies over 3 MiB before parsing', async () => {
    const event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'big' },
      involvedObject: { kind: 'Ingress', name: 'web' },
      message: 'x'.repeat(1_600_000),
    };
    const big = await call(sim, 'POST', '/api/v1/namespaces/fid/events', { body: event });
    assert.equal(big.status, 413);
    assert.equal(big.body.reason, 'RequestEntityTooLarge');
    const bigMap = await call(sim, 'POST', cmPath(), { body: { ...cm('big'), data: { k: 'x'.repeat(1_100_000) } } });
    assert.equal(bigMap.status, 422);
    const huge = await call(sim, 'POST', cmPath(), { body: { ...cm('huge'), data: { k: 'x'.repeat(3_200_000) } } });
    assert.equal(huge.status, 413);
  });
  it('fails the next N requests to one resource with the injected status (429 carries Retry-After)', async () => {
    sim.faults.failRequests({ resource: 'configmaps', status: 429, count: 2, verbs: ['list'] });
    const one = await call(sim, 'GET', cmPath());
    const two = await call(sim, 'GET', cmPath());
    const three = await call(sim, 'GET', cmPath());
    assert.deepEqual([one.status, two.status, three.status], [429, 429, 200]);
    assert.equal(one.headers['retry-after'], '1');
    assert.equal(one.body.reason, 'TooManyRequests');
    sim.faults.failRequests({ resource: 'configmaps', status: 403, count: 1 });
    const forbidden = await call(sim, 'GET', `${cmPath()}/a`);
    assert.equal(forbidden.status, 403);
    assert.match(forbidden.body.message, /cannot get resource "configmaps"/);
  });
  it('serves resourceVersion=0 lists from a lagging snapshot while the fault is on; quorum lists stay fresh', async () => {
    sim.faults.lagZeroResourceVersionReads(true);
    sim.objects.create(cm('fresh'));
    const lagging = await call(sim, 'GET', `${cmPath()}?resourceVersion=0`);
    const quorum = await call(sim, 'GET', cmPath());
    sim.faults.lagZeroResourceVersionReads(false);
    const names = (b: { items: { metadata: { name: string } }[] }) => b.items.map((i) => i.metadata.name);
    assert.equal(names(lagging.body).includes('fresh'), false);
    assert.ok(Number(lagging.body.metadata.resourceVersion) < Number(quorum.body.metadata.resourceVersion));
    assert.equal(names(quorum.body).includes('fresh'), true);
  });
  it('stalls watches (nothing written, not even bookmarks) and delivers the backlog on resume', async () => {
    const watch = openWatch(
      sim,
      `${cmPath()}?watch=true&resourceVersion=${sim.store.resourceVersion}&allowWatchBookmarks=true`,
    );
    await watch.waitFor((l) => l.length >= 1);
    sim.faults.stallWatches();
    const seen = watch.lines.length;
    sim.objects.create(cm('during-stall'));
    await new Promise((r) => setTimeout(r, 400));
    assert.equal(watch.lines.length, seen);
    sim.faults.resumeWatches();
    await watch.waitFor((l) => l.some((x) => 'object' in x && x.object.metadata?.name === 'during-stall'));
    watch.close();
  });
  it('sends garbled lines and in-stream ERROR 410 into open watches; the admin endpoint drives the same faults', async () => {
    const watch = openWatch(sim, `${cmPath()}?watch=true&resourceVersion=${sim.store.resourceVersion}`);
    await watch.status;
    await new Promise((r) => setTimeout(r, 50));
    assert.equal((await call(sim, 'POST', '/_sim/faults', { body: { action: 'garbled-line' } })).status, 200);
    assert.equal((await call(sim, 'POST', '/_sim/faults', { body: { action: 'watch-gone' } })).body.watches, 1);
    await watch.ended;
    assert.deepEqual(
      watch.lines.map((l) => l.type),
      ['UNPARSABLE', 'ERROR'],
    );
    assert.equal(
      (await call(sim, 'POST', '/_sim/faults', { body: { action: 'compact' }, token: 'wrong' })).status,
      401,
    );
    const log = await call(sim, 'GET', '/_sim/changelog');
    assert.equal(log.body.items.length, sim.changeLog.length);
    assert.deepEqual(Object.keys(log.body.items[0]), ['rv', 'type', 'kind', 'namespace', 'name', 'uid']);
  });
});
