// The Kubernetes SIG-Network Ingress conformance features (kubernetes-sigs/ingress-controller-conformance, as data in
// ./ingress-conformance/) run end to end, in sequence, on ONE long-lived pipeline: kubectl → simulator → watcher →
// NATS → planner → Postgres → applier → HAProxy, with every scenario checked by real requests through HAProxy.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { freePort } from '@portolan/infra';
import { ConformanceCluster, describeRequest, type FeatureRun } from './conformance-cluster.ts';
import { loadFeatures, type ConformanceScenario } from './conformance-feature.ts';
import { eventually } from './eventually.ts';
import type { Reply } from './http-client.ts';
import { ingressClass } from './manifests.ts';
import { startPipeline, type Pipeline } from './pipeline-harness.ts';

const CONTROLLER = 'portolan.dev/ingress-controller';
const CLASS = 'portolan-conformance';
const features = loadFeatures(path.join(import.meta.dirname, 'ingress-conformance'));
let p: Pipeline;
let cluster: ConformanceCluster;

before(async () => {
  p = await startPipeline({
    appliances: [{ name: 'edge', driver: 'haproxy', ingressControllers: [CONTROLLER], replicas: ['edge-a'] }],
  });
  await p.apply(ingressClass(CLASS, CONTROLLER));
  cluster = new ConformanceCluster(p, { className: CLASS, echoPort: await freePort('127.0.0.1'), appliance: 'edge' });
});
after(async () => {
  await p?.stop();
});

for (const feature of features) {
  test(`Feature: ${feature.feature}`, async (t) => {
    const run = await cluster.setUp(feature);
    try {
      const status = feature.statusScenario === null ? '' : `${feature.statusScenario}: `;
      if (feature.exposed)
        await t.test(`${status}The Ingress status shows the IP address or FQDN where it is exposed`, () =>
          cluster.assertExposed(run),
        );
      else
        await t.test(`${status}The Ingress status should not contain the IP address or FQDN`, () =>
          cluster.assertNotExposed(run),
        );
      if (feature.scale !== null) {
        const { service, replicas } = feature.scale;
        await t.test(`The backend deployment "${service}" for the ingress resource is scaled to ${replicas}`, () =>
          scaled(run, service, replicas),
        );
      }
      for (const scenario of feature.scenarios)
        await t.test(`${scenario.origin === 'portolan' ? '[portolan] ' : ''}${scenario.name}`, () =>
          check(run, scenario),
        );
    } finally {
      const routed = feature.scenarios.filter((s) => s.expect.status === 200).map((s) => ({ ...s.request, count: 1 }));
      await cluster.tearDown(run, routed);
    }
  });
}

/**
 * Scales up and waits until every new pod has answered once. Upstream waits for the endpoints and then sleeps 60 s;
 * the scenario's own 100 requests after this are the assertion.
 */
async function scaled(run: FeatureRun, service: string, replicas: number): Promise<void> {
  await cluster.scale(run, service, replicas);
  const want = new Set((run.pods.get(service) ?? []).map((pod) => pod.name));
  assert.equal(want.size, replicas);
  const probe = run.feature.scenarios.find((s) => s.expect.status === 200 && s.expect.service === service);
  assert.ok(probe !== undefined, `a scenario of this feature is served by ${service}`);
  const request = probe.request;
  const seen = new Set<string>();
  await eventually(
    `all ${replicas} pods of ${service} to answer`,
    async () => {
      for (let i = 0; i < replicas; i++) {
        const pod = (await cluster.send({ ...request, count: 1 })).echo?.context?.pod;
        if (pod !== undefined) seen.add(pod);
      }
      assert.deepEqual(
        [...want].filter((pod) => !seen.has(pod)),
        [],
      );
    },
    { timeoutMs: 60_000, context: () => p.diagnostics() },
  );
}

/** One scenario: its request(s) through HAProxy and every expectation upstream's steps check. */
async function check(run: FeatureRun, scenario: ConformanceScenario): Promise<void> {
  const { request, expect } = scenario;
  const replies: Reply[] = [];
  for (let i = 0; i < request.count; i++) replies.push(await cluster.send(request));
  const pods = new Set<string>();
  for (const r of replies) {
    const what = `${describeRequest(request)} → ${r.status} ${r.body.slice(0, 200)}`;
    assert.equal(r.status, expect.status, what);
    if (expect.status === 404) assert.equal(r.echo, null, `no backend may answer: ${what}`);
    if (expect.service !== undefined) {
      assert.equal(r.echo?.context?.service, expect.service, `served by the Service: ${what}`);
      assert.equal(r.echo?.context?.namespace, run.namespace, `served from this feature's namespace: ${what}`);
    }
    if (r.echo?.context !== undefined) pods.add(r.echo.context.pod);
    if (expect.requestHost !== undefined) assert.equal(r.echo?.host, expect.requestHost, 'the request host');
    if (expect.requestMethod !== undefined) assert.equal(r.echo?.method, expect.requestMethod, 'the request method');
    if (expect.requestPath !== undefined) assert.equal(r.echo?.path, expect.requestPath, 'the request path');
    if (expect.requestProto !== undefined) assert.equal(r.echo?.proto, expect.requestProto, 'the request proto');
    if (expect.responseProto !== undefined)
      assert.equal(`HTTP/${r.httpVersion}`, expect.responseProto, 'the response proto');
    for (const [name, value] of Object.entries(expect.responseHeaders ?? {})) {
      const got = r.headers[name.toLowerCase()];
      assert.ok(got !== undefined, `the response has a ${name} header (has ${Object.keys(r.headers).join(', ')})`);
      if (value !== '*')
        assert.ok([got].flat().includes(value), `response header ${name}: ${String(got)}, want ${value}`);
    }
    for (const [name, value] of Object.entries(expect.requestHeaders ?? {})) {
      const got = r.echo?.headers?.[name.toLowerCase()];
      assert.ok(got !== undefined, `the request arrived with a ${name} header`);
      if (value !== '*') assert.ok(got.includes(value), `request header ${name}: ${got.join(', ')}, want ${value}`);
    }
    if (expect.certificateHost !== undefined) {
      assert.ok(
        (r.certificateNames ?? '').split(', ').includes(`DNS:${expect.certificateHost}`),
        `the certificate covers ${expect.certificateHost}: ${r.certificateNames}`,
      );
    }
  }
  if (expect.distinctPods !== undefined)
    assert.equal(
      pods.size,
      expect.distinctPods,
      `${request.count} requests reached ${pods.size} pods: ${[...pods].sort().join(', ')}`,
    );
}
