// The day, Gateway API part (steps g1–g6), on the same HAProxy as the Ingresses: a platform team opens a Gateway,
// an application team ships a canary, moves it, applies a route before its Service, adds a header-matched beta
// route, and finally tears its namespace down — while the Ingress hosts of the morning keep being served.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freePort } from '@portolan/infra';
import { p, pod, portolan, servedBy, within } from '../everyday-day.ts';
import { endpointSlice, gatewayClass, namespace, service } from '../manifests.ts';
import { sendRequest } from '../http-client.ts';

const ns = 'storefront';
const host = 'shop.gw.example.com';
const pods = { stable: pod(30), next: pod(31), late: pod(32), beta: pod(33) };
let port = 0;

/** The pod a request to the Gateway's listener reached, or `status N`. */
async function through(headers: Record<string, string> = {}): Promise<string> {
  const r = await sendRequest(port, host, '/', { headers });
  return r.echo?.address ?? `status ${r.status}`;
}

const backend = (name: string, address: string): string =>
  service(ns, name, p.echoPort) + endpointSlice(ns, name, [address], p.echoPort);

/** The team's HTTPRoute: a weighted rule to stable and next, and optional extra rules before it. */
const route = (stable: number, next: number, extraRules = ''): string => `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: shop, namespace: ${ns} }
spec:
  parentRefs: [{ name: public, namespace: platform }]
  hostnames: [${host}]
  rules:${extraRules}
    - backendRefs:
        - { name: stable, port: 80, weight: ${stable} }
        - { name: next, port: 80, weight: ${next} }
`;

test('g1 a platform team opens a Gateway for every namespace; an application team routes a host to it', async () => {
  port = await freePort();
  await p.apply(
    namespace('platform') +
      gatewayClass() +
      `---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: public, namespace: platform }
spec:
  gatewayClassName: portolan
  listeners:
    - { name: http, port: ${port}, protocol: HTTP, allowedRoutes: { namespaces: { from: All } } }
` +
      namespace(ns) +
      backend('stable', pods.stable) +
      backend('next', pods.next) +
      route(100, 0),
  );
  await within(`${host} served by stable through the Gateway`, async () => assert.equal(await through(), pods.stable));
});

test('g2 the canary moves all its weight to next: only next answers, and the Ingress hosts are untouched', async () => {
  await p.apply(route(0, 100));
  await within('next takes every request', async () => {
    for (let i = 0; i < 10; i++) assert.equal(await through(), pods.next);
  });
  await servedBy('a.example.com', [pod(1), pod(2)]);
});

test('g3 a rule applied before its Service answers 500, then serves as soon as the Service exists', async () => {
  const late = `
    - matches: [{ path: { type: PathPrefix, value: /late } }]
      backendRefs: [{ name: late, port: 80 }]`;
  await p.apply(route(0, 100, late));
  await within('the rule without a Service to answer 500', async () => {
    assert.equal((await sendRequest(port, host, '/late/x')).status, 500);
  });
  await p.apply(backend('late', pods.late));
  await within('the rule to reach the new Service', async () => {
    assert.equal((await sendRequest(port, host, '/late/x')).echo?.address, pods.late);
  });
});

test('g4 a header-matched beta rule: the cohort reaches beta, everyone else next', async () => {
  const beta = `
    - matches: [{ headers: [{ name: X-Cohort, value: beta }] }]
      backendRefs: [{ name: beta, port: 80 }]`;
  await p.apply(backend('beta', pods.beta) + route(0, 100, beta));
  await within('the cohort on beta', async () => assert.equal(await through({ 'X-Cohort': 'beta' }), pods.beta));
  assert.equal(await through({ 'X-Cohort': 'gamma' }), pods.next);
  assert.equal(await through(), pods.next);
  const explain = (...extra: string[]) => portolan(['explain', p.appliance('edge'), `${host}/`, ...extra]);
  const cohort = await explain('--header', 'X-Cohort: beta');
  assert.equal(cohort.code, 0, cohort.stderr);
  assert.match(cohort.stdout, /from HTTPRoute storefront\/shop rule 0 via Gateway platform\/public listener http/);
  const plain = await explain('--method', 'GET');
  assert.match(plain.stdout, /from HTTPRoute storefront\/shop rule 1 via Gateway platform\/public listener http/);
});

test('g5 the team tears its namespace down: its host is gone, the Gateway and the Ingress hosts stay', async () => {
  await p.kubectl(['delete', 'namespace', ns, '--wait=false']);
  await within(`${host} to answer 404`, async () => assert.equal(await through(), 'status 404'));
  await servedBy('a.example.com', [pod(1), pod(2)]);
  await within('the listener to count no route', async () => {
    const gw = JSON.parse(await p.kubectl(['get', 'gateway/public', '-n', 'platform', '-o', 'json'])) as {
      status?: { listeners?: { attachedRoutes: number }[] };
    };
    assert.equal(gw.status?.listeners?.[0]?.attachedRoutes, 0);
  });
});

test('g6 the team comes back under the same names: served again', async () => {
  // The namespace may still be terminating: the API refuses objects in it until it is gone.
  await within('the namespace to be re-created', () =>
    p.apply(namespace(ns) + backend('stable', pods.stable) + backend('next', pods.next) + route(100, 0)),
  );
  await within(`${host} served by stable again`, async () => assert.equal(await through(), pods.stable));
});
