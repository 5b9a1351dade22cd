// The audit console on a running pipeline, as its users meet it: the real watcher, planner and applier route
// traffic through a real HAProxy; an auditor (viewer token) and an operator (operator token) use the console's API
// while Ingresses change. Every answer is checked against traffic or the store: a change made with kubectl shows up
// live on the event stream and in the history with its cause; the diff names it; a viewer cannot write; the
// operator's rollback (with a reason) brings traffic back to the earlier backend and records who did it and why;
// no answer carries private key material.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from '@portolan/store';
import { call, headSnapshot, openEvents } from './console-client.ts';
import { eventually } from './eventually.ts';
import { endpointSlice, ingress, ingressClass, namespace, selfSignedCertificate, service } from './manifests.ts';
import { startPipeline, type Pipeline } from './pipeline-harness.ts';

const ns = 'shop';
const pods = { web: ['127.0.41.1'], api: ['127.0.41.2'] };
const host = 'shop.console.example.com';
let p: Pipeline;
let base: string;
let operator: string;
let viewer: string;
let edge: string;
let cert: ReturnType<typeof selfSignedCertificate>;
/** The head snapshot while web served the shop (set by the change test, rolled back to by the operator). */
let webSnapshot: string;

/** The shop Ingress routing `/` to a Service, with TLS from the cert Secret. */
const shop = (svc: 'web' | 'api'): string =>
  ingress(ns, 'shop', {
    className: 'portolan',
    tls: [{ hosts: [host], secretName: 'shop-tls' }],
    rules: [{ host, paths: [{ path: '/', type: 'Prefix', service: svc }] }],
  });

before(async () => {
  p = await startPipeline({
    appliances: [
      {
        name: 'edge',
        driver: 'haproxy',
        ingressControllers: ['portolan.dev/ingress-controller'],
        replicas: ['edge-a'],
      },
    ],
    echoAddresses: [...pods.web, ...pods.api],
    console: true,
  });
  ({ url: base, operatorToken: operator, viewerToken: viewer } = p.console!);
  edge = p.appliance('edge');
  cert = selfSignedCertificate([host]);
  await p.apply(
    [
      namespace(ns),
      ingressClass('portolan', 'portolan.dev/ingress-controller'),
      service(ns, 'web', p.echoPort),
      service(ns, 'api', p.echoPort),
      endpointSlice(ns, 'web', pods.web, p.echoPort),
      endpointSlice(ns, 'api', pods.api, p.echoPort),
    ].join(''),
  );
  await p.kubectl(['create', 'secret', 'tls', 'shop-tls', '-n', ns, '--cert', cert.certFile, '--key', cert.keyFile]);
  await p.apply(shop('web'));
  await eventually('the shop served by web', async () => assert.equal(await who(), pods.web[0]), { context });
});
after(async () => {
  cert?.dispose();
  await p?.stop();
});

const context = (): string => p.diagnostics();

/** The pod that answered the shop host through HAProxy. */
async function who(): Promise<string> {
  const r = await p.request(host, '/');
  return r.echo?.address ?? `status ${r.status}`;
}

/** The appliance's head snapshot id, from the console. */
const headId = (): Promise<string> => headSnapshot(base, viewer, edge);

test('no anonymous access: no token or an unknown one is 401 with a JSON error; the OpenAPI document is public', async () => {
  for (const token of [null, 'ptl_not-a-token']) {
    for (const urlPath of ['/api/v1/status', '/api/v1/appliances', `/api/v1/appliances/${edge}/history`]) {
      const r = await call<{ error: { code: string } }>(base, token, urlPath);
      assert.equal(r.status, 401, `${urlPath} with ${token ?? 'no token'}: ${r.text}`);
      assert.equal(r.body.error.code, 'Unauthenticated');
    }
  }
  const doc = await call<{ openapi: string; paths: Record<string, unknown> }>(base, null, '/api/v1/openapi.json');
  assert.equal(doc.status, 200);
  for (const route of ['/appliances/{name}/history', '/diff', '/appliances/{name}/rollback', '/events'])
    assert.ok(route in doc.body.paths, `the OpenAPI document lists ${route}`);
  const me = await call<{ name: string; role: string }>(base, viewer, '/api/v1/session');
  assert.deepEqual([me.status, me.body.name, me.body.role], [200, 'viewer', 'viewer']);
});

test('a kubectl change reaches the event stream, the history (with its cause) and the diff', async () => {
  const before = await headId();
  webSnapshot = before;
  const stream = openEvents(base, viewer);
  try {
    await stream.opened;
    await p.apply(shop('api'));
    await eventually('the shop served by api', async () => assert.equal(await who(), pods.api[0]), { context });
    const snapshot = await eventually('a snapshot event for the change', () => {
      const e = stream.events.find((x) => x.event === 'snapshot' && x.data['appliance'] === edge);
      assert.ok(e, `events so far: ${JSON.stringify(stream.events)}`);
      return e;
    });
    await eventually('an apply event of that snapshot', () =>
      assert.ok(stream.events.some((x) => x.event === 'apply' && x.data['snapshotId'] === snapshot.data['id'])),
    );
    const after = await headId();
    assert.notEqual(after, before);
    const history = await call<{ entries: { type: string; id: string; cause?: unknown }[] }>(
      base,
      viewer,
      `/api/v1/appliances/${edge}/history?object=${encodeURIComponent('shop/shop')}&kind=snapshot`,
    );
    assert.equal(history.status, 200, history.text);
    assert.ok(history.body.entries.length > 0, 'the object filter keeps the snapshots the shop Ingress caused');
    assert.ok(
      history.body.entries.every((e) => e.type === 'snapshot'),
      'the kind filter keeps only snapshots',
    );
    assert.match(JSON.stringify(history.body.entries.at(-1)), /Ingress/, 'the newest snapshot names its cause');
    const diff = await call<{ objects: unknown[]; operations: unknown[] | null }>(
      base,
      viewer,
      `/api/v1/diff?from=${before}&to=${after}`,
    );
    assert.equal(diff.status, 200, diff.text);
    assert.ok(diff.body.objects.length > 0, 'the diff lists the changed objects');
    assert.ok((diff.body.operations ?? []).length > 0, 'and the vendor operations a push makes');
  } finally {
    stream.close();
  }
});

test('a viewer cannot roll back, approve or resume: 403, and nothing is written', async () => {
  const target = await headId();
  for (const [what, body] of [
    ['rollback', { to: target, reason: 'viewer tries' }],
    ['approve', { reason: 'viewer tries' }],
    ['resume', { reason: 'viewer tries' }],
  ] as const) {
    const r = await call<{ error: { code: string } }>(base, viewer, `/api/v1/appliances/${edge}/${what}`, {
      method: 'POST',
      body,
    });
    assert.equal(r.status, 403, `${what}: ${r.text}`);
    assert.equal(r.body.error.code, 'Forbidden');
  }
  const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM operator_actions`.execute(p.db);
  assert.equal(Number(rows[0]!.n), 0, 'no operator action recorded');
});

test("the operator's rollback needs a reason, brings traffic back to web, and records who and why", async () => {
  const target = webSnapshot;
  const noReason = await call(base, operator, `/api/v1/appliances/${edge}/rollback`, {
    method: 'POST',
    body: { to: target, reason: '  ' },
  });
  assert.equal(noReason.status, 400, noReason.text);
  const stream = openEvents(base, viewer);
  try {
    await stream.opened;
    const r = await call<{ rollbackSnapshot: string; pinned: boolean }>(
      base,
      operator,
      `/api/v1/appliances/${edge}/rollback`,
      {
        method: 'POST',
        body: { to: target, reason: 'incident 4711: api pool broken', waitSeconds: 20 },
      },
    );
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.pinned, true);
    await eventually('traffic back on web', async () => assert.equal(await who(), pods.web[0]), { context });
    await eventually('the action on the event stream', () =>
      assert.ok(stream.events.some((e) => e.event === 'action' && e.data['actor'] === 'operator (token)')),
    );
  } finally {
    stream.close();
  }
  const { rows } = await sql<{ actor: string; action: string; reason: string }>`
    SELECT actor, action, reason FROM operator_actions ORDER BY id`.execute(p.db);
  assert.deepEqual(rows, [{ actor: 'operator (token)', action: 'rollback', reason: 'incident 4711: api pool broken' }]);
  const resumed = await call(base, operator, `/api/v1/appliances/${edge}/resume`, {
    method: 'POST',
    body: { reason: 'api pool fixed' },
  });
  assert.equal(resumed.status, 200, resumed.text);
  await eventually('traffic on api again after resume', async () => assert.equal(await who(), pods.api[0]), {
    context,
  });
});

test('no answer carries private key material, whatever a viewer reads', async () => {
  const head = await headId();
  const history = await call<{ entries: { type: string; id: string }[] }>(
    base,
    viewer,
    `/api/v1/appliances/${edge}/history`,
  );
  const applies = history.body.entries.filter((e) => e.type === 'apply').map((e) => e.id);
  const paths = [
    '/api/v1/status',
    '/api/v1/appliances',
    `/api/v1/appliances/${edge}/history`,
    `/api/v1/appliances/${edge}/metrics?since=-1h`,
    `/api/v1/snapshots/${head}?vendor=true`,
    `/api/v1/appliances/${edge}/at?time=now`,
    `/api/v1/appliances/${edge}/explain?q=${encodeURIComponent(`${host}/`)}`,
    ...applies.slice(-3).map((id) => `/api/v1/appliances/${edge}/applies/${id}/operations`),
  ];
  const keyLine = cert.privateKeyPem.split('\n').find((l) => l.length > 40 && !l.startsWith('-----'))!;
  for (const urlPath of paths) {
    const r = await call(base, viewer, urlPath);
    assert.equal(r.status, 200, `${urlPath}: ${r.text.slice(0, 300)}`);
    assert.doesNotMatch(r.text, /PRIVATE KEY/, `${urlPath} carries no PEM key`);
    assert.ok(!r.text.includes(keyLine), `${urlPath} carries no line of the key`);
  }
});
