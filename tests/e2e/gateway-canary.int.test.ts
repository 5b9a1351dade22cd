// A weighted canary through the Gateway API, end to end: kubectl applies a GatewayClass, a Gateway and a 90/10
// HTTPRoute; the watcher, planner and applier put them on HAProxy; requests sent through it split as the weights
// say, and moving the weights moves the split with no reload.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import assert from 'node:assert/strict';
import { freePort } from '@portolan/infra';
import { startPipeline, type Pipeline } from './pipeline-harness.ts';
import { endpointSlice, gatewayClass, namespace, selfSignedCertificate, service } from './manifests.ts';
import { eventually } from './eventually.ts';
import { sendRequest } from './http-client.ts';

const ns = 'shop';
const pods = { stable: ['127.0.23.1', '127.0.23.2'], next: ['127.0.23.3'] };
const REQUESTS = 1000;
let p: Pipeline;
let gatewayPort: number;

const gateway = (port: number): string => `${gatewayClass()}---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: shared, namespace: ${ns} }
spec:
  gatewayClassName: portolan
  listeners:
    - { name: http, port: ${port}, protocol: HTTP }
`;

const canary = (stable: number, next: number): string => `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: canary, namespace: ${ns} }
spec:
  parentRefs: [{ name: shared }]
  hostnames: [shop.example.com]
  rules:
    - backendRefs:
        - { name: stable, port: 80, weight: ${stable} }
        - { name: next, port: 80, weight: ${next} }
`;

before(async () => {
  p = await startPipeline({
    appliances: [
      {
        name: 'edge',
        driver: 'haproxy',
        ingressControllers: ['portolan.dev/ingress-controller'],
        replicas: ['edge-a', 'edge-b'],
      },
    ],
    echoAddresses: [...pods.stable, ...pods.next],
  });
  gatewayPort = await freePort();
  await p.apply(
    [
      namespace(ns),
      service(ns, 'stable', p.echoPort),
      service(ns, 'next', p.echoPort),
      endpointSlice(ns, 'stable', pods.stable, p.echoPort),
      endpointSlice(ns, 'next', pods.next, p.echoPort),
      gateway(gatewayPort),
      canary(90, 10),
    ].join(''),
  );
});
after(async () => {
  await p?.stop();
});

const context = (): string => p.diagnostics();

/** The share of `n` requests the stable pods answered (every request must be answered by a pod). */
async function stableShare(n = REQUESTS): Promise<number> {
  let stable = 0;
  for (let i = 0; i < n; i++) {
    const r = await sendRequest(gatewayPort, 'shop.example.com', `/item/${i}`);
    assert.ok(r.echo !== null, `request ${i} answered ${r.status} by no pod`);
    if (pods.stable.includes(r.echo.address)) stable++;
    else assert.ok(pods.next.includes(r.echo.address), r.echo.address);
  }
  return stable / n;
}

test('a 90/10 HTTPRoute splits 1,000 requests within 3 % of its weights', async () => {
  await eventually(
    'the route to be served',
    async () => {
      const r = await sendRequest(gatewayPort, 'shop.example.com', '/');
      assert.ok(r.echo !== null, `status ${r.status}`);
    },
    { context, timeoutMs: 60_000 },
  );
  const share = await stableShare();
  process.stdout.write(`# stable share at 90/10: ${(share * 100).toFixed(1)} %\n`);
  assert.ok(Math.abs(share - 0.9) <= 0.03, `stable answered ${(share * 100).toFixed(1)} %`);
  const other = await sendRequest(gatewayPort, 'other.example.com', '/');
  assert.equal(other.status, 404, 'a host no route names is not served');
});

test('moving the weights to 50/50 moves the split, with no HAProxy reload', async () => {
  const reloads = await p.haproxyReloads();
  await p.apply(canary(50, 50));
  await eventually('the new weights to be applied', async () => assert.ok((await stableShare(100)) < 0.7), {
    context,
    timeoutMs: 30_000,
  });
  const share = await stableShare();
  process.stdout.write(`# stable share at 50/50: ${(share * 100).toFixed(1)} %\n`);
  assert.ok(Math.abs(share - 0.5) <= 0.03, `stable answered ${(share * 100).toFixed(1)} %`);
  assert.equal(await p.haproxyReloads(), reloads, 'a weight change must not reload HAProxy');
});

test('portolan explain names the HTTPRoute, its rule and the Gateway listener that serve a request', async () => {
  const cli = path.join(import.meta.dirname, '..', '..', 'packages', 'cli', 'bin', 'portolan.js');
  const args = [cli, 'explain', p.appliance('edge'), 'shop.example.com/item/1', '--config', p.fleetConfig];
  const { stdout } = await promisify(execFile)(process.execPath, args, { timeout: 60_000 });
  assert.match(
    stdout,
    /route shop\.example\.com\/ \(Prefix\) → pool gw~\S+~shop~canary~0, from HTTPRoute shop\/canary rule 0 via Gateway shop\/shared listener http/,
  );
  assert.match(stdout, /HTTPRoute\/shop\/canary\s.*rule 0: routes shop\.example\.com\/ on gw~/);
  assert.match(stdout, /Gateway\/shop\/shared\s.*listener http carries gw~/);
  assert.match(stdout, /Service\/shop\/stable\s.*backs pool gw~\S+~shop~canary~0/);
});

test('the leader writes the status the specification asks for; kubectl describe shows it', async () => {
  type Condition = { type: string; status: string; reason: string; lastTransitionTime?: string };
  const get = async (what: string): Promise<{ status?: Record<string, unknown> }> =>
    JSON.parse(await p.kubectl(['get', what, '-n', ns, '-o', 'json'])) as { status?: Record<string, unknown> };
  const summary = (conditions: unknown): string[] =>
    ((conditions ?? []) as Condition[]).map((c) => `${c.type}=${c.status} ${c.reason}`);
  await eventually(
    'the HTTPRoute, Gateway and GatewayClass statuses',
    async () => {
      const route = (await get('httproute/canary')).status as {
        parents?: { conditions: unknown; controllerName: string }[];
      };
      assert.equal(route?.parents?.length, 1, JSON.stringify(route));
      assert.equal(route.parents[0]!.controllerName, 'portolan.dev/gateway-controller');
      assert.deepEqual(summary(route.parents[0]!.conditions), [
        'Accepted=True Accepted',
        'ResolvedRefs=True ResolvedRefs',
      ]);
      const gw = (await get('gateway/shared')).status as {
        conditions: unknown;
        addresses?: { value: string }[];
        listeners?: { name: string; attachedRoutes: number; conditions: unknown }[];
      };
      assert.deepEqual(summary(gw.conditions), ['Accepted=True Accepted', 'Programmed=True Programmed']);
      assert.ok((gw.addresses ?? []).length > 0, `addresses ${JSON.stringify(gw.addresses)}`);
      assert.equal(gw.listeners?.[0]?.attachedRoutes, 1);
      assert.deepEqual(summary(gw.listeners?.[0]?.conditions), [
        'Accepted=True Accepted',
        'ResolvedRefs=True ResolvedRefs',
        'Conflicted=False NoConflicts',
        'Programmed=True Programmed',
      ]);
      const gc = (await get('gatewayclass/portolan')).status as { conditions: unknown };
      assert.deepEqual(summary(gc.conditions), ['Accepted=True Accepted', 'SupportedVersion=True SupportedVersion']);
    },
    { context, timeoutMs: 30_000 },
  );
  const described = await p.kubectl(['describe', 'httproute', 'canary', '-n', ns]);
  assert.match(described, /Controller Name:\s+portolan\.dev\/gateway-controller/);
  assert.match(described, /Reason:\s+Accepted/);
  assert.match(described, /Type:\s+ResolvedRefs/);

  // A route naming a Service that does not exist: attached, ResolvedRefs False BackendNotFound, answered 500.
  await p.apply(`---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: broken, namespace: ${ns} }
spec:
  parentRefs: [{ name: shared }]
  hostnames: [broken.example.com]
  rules: [{ backendRefs: [{ name: missing, port: 80 }] }]
`);
  await eventually(
    'the broken route to be answered 500 and its status to say why',
    async () => {
      assert.equal((await sendRequest(gatewayPort, 'broken.example.com', '/')).status, 500);
      const route = (await get('httproute/broken')).status as { parents?: { conditions: unknown }[] };
      assert.deepEqual(summary(route?.parents?.[0]?.conditions), [
        'Accepted=True Accepted',
        'ResolvedRefs=False BackendNotFound',
      ]);
    },
    { context, timeoutMs: 30_000 },
  );
});

test('a route HAProxy cannot carry is refused on its own: its status says why, and everything else applies', async () => {
  await p.apply(`---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: perl-regex, namespace: ${ns} }
spec:
  parentRefs: [{ name: shared }]
  hostnames: [regex.example.com]
  rules:
    - matches: [{ path: { type: RegularExpression, value: '/item/\\d+' } }]
      backendRefs: [{ name: next, port: 80 }]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: after, namespace: ${ns} }
spec:
  parentRefs: [{ name: shared }]
  hostnames: [after.example.com]
  rules: [{ backendRefs: [{ name: next, port: 80 }] }]
`);
  await eventually(
    'the route after it to be served, and the refused one to say why',
    async () => {
      const r = await sendRequest(gatewayPort, 'after.example.com', '/');
      assert.ok(r.echo !== null && pods.next.includes(r.echo.address), `status ${r.status}`);
      const status = JSON.parse(await p.kubectl(['get', 'httproute/perl-regex', '-n', ns, '-o', 'json'])) as {
        status?: { parents?: { conditions: { type: string; status: string; reason: string; message: string }[] }[] };
      };
      const accepted = status.status?.parents?.[0]?.conditions.find((c) => c.type === 'Accepted');
      assert.equal(`${accepted?.status} ${accepted?.reason}`, 'False UnsupportedValue', JSON.stringify(status.status));
      assert.match(accepted!.message, /POSIX/);
    },
    { context, timeoutMs: 60_000 },
  );
  assert.equal((await sendRequest(gatewayPort, 'regex.example.com', '/item/7')).status, 404);
  const share = await stableShare(200);
  assert.ok(share > 0.3 && share < 0.7, `the canary still splits 50/50: ${share}`);
});

test('an HTTPS listener terminates TLS with its certificateRefs Secret and routes by SNI host', async (t) => {
  const cert = selfSignedCertificate(['secure.example.com']);
  t.after(() => cert.dispose());
  await p.kubectl(['create', 'secret', 'tls', 'secure-cert', '-n', ns, '--cert', cert.certFile, '--key', cert.keyFile]);
  const httpsPort = await freePort();
  await p.apply(`---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: secure, namespace: ${ns} }
spec:
  gatewayClassName: portolan
  listeners:
    - name: https
      port: ${httpsPort}
      protocol: HTTPS
      hostname: secure.example.com
      tls: { mode: Terminate, certificateRefs: [{ name: secure-cert }] }
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: secure, namespace: ${ns} }
spec:
  parentRefs: [{ name: secure }]
  rules: [{ backendRefs: [{ name: next, port: 80 }] }]
`);
  const r = await eventually(
    'HTTPS for secure.example.com',
    async () => {
      const reply = await sendRequest(httpsPort, 'secure.example.com', '/pay', { https: true });
      assert.ok(reply.echo !== null && pods.next.includes(reply.echo.address), `status ${reply.status}`);
      return reply;
    },
    { context, timeoutMs: 60_000 },
  );
  assert.equal(r.certificateNames, 'DNS:secure.example.com', 'the listener serves its certificateRefs Secret');
  assert.equal(r.echo?.forwardedProto, 'https');
  assert.equal(r.echo?.path, '/pay');
});

test('a route that stops naming the Gateway loses the parent status Portolan wrote', async () => {
  await p.apply(`---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: broken, namespace: ${ns} }
spec:
  parentRefs: [{ name: elsewhere }]
  hostnames: [broken.example.com]
  rules: [{ backendRefs: [{ name: missing, port: 80 }] }]
`);
  await eventually(
    'the parent entry to be withdrawn',
    async () => {
      const route = JSON.parse(await p.kubectl(['get', 'httproute/broken', '-n', ns, '-o', 'json'])) as {
        status?: { parents?: unknown[] };
      };
      assert.deepEqual(route.status?.parents ?? [], []);
      assert.equal((await sendRequest(gatewayPort, 'broken.example.com', '/')).status, 404);
    },
    { context, timeoutMs: 30_000 },
  );
});
