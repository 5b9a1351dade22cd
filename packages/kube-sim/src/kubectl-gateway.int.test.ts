// Drives the real kubectl against the Gateway API kinds: apply (and re-apply through merge patches), the CRDs'
// printer columns, describe, a status write through /status, and a refused invalid object.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startKubeSim, type KubeSim } from './index.ts';
import { runKubectl, skipWithoutKubectl as skip, type KubectlResult } from './testing/kubectl-runner.ts';

let sim: KubeSim;
let dir: string;
const requests: string[] = [];

function kubectl(args: readonly string[]): Promise<KubectlResult> {
  return runKubectl(dir, args);
}

const manifest = (prefix: string) => `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: portolan
spec:
  controllerName: portolan.dev/gateway-controller
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: web
spec:
  gatewayClassName: portolan
  listeners:
  - {name: http, port: 80, protocol: HTTP}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: web
spec:
  parentRefs: [{name: web}]
  hostnames: [web.example.com]
  rules:
  - matches: [{path: {type: PathPrefix, value: ${prefix}}}]
    backendRefs: [{name: web, port: 8080}]
`;

const invalidRoute = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: broken
spec:
  rules:
  - matches: [{path: {type: Exact, value: api}}]
    backendRefs: [{name: web, port: 70000}]
`;

/** The rows of a `kubectl get` table, split on runs of spaces. */
function rows(stdout: string): string[][] {
  return stdout
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s{2,}/));
}

// This describe only groups short, dependent steps of one kubectl session: its length is their number.
describe('kubectl and the Gateway API', { skip }, () => {
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'kube-sim-kubectl-gateway-'));
    sim = await startKubeSim({ onRequest: (e) => requests.push(`${e.method} ${e.url} ${e.contentType}`) });
    await sim.writeKubeconfig(path.join(dir, 'kubeconfig'));
  });
  after(async () => {
    await sim?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('apply creates the objects; a changed re-apply sends JSON merge patches, as for any CRD', async () => {
    await writeFile(path.join(dir, 'gateway.yaml'), manifest('/api'));
    const created = await kubectl(['apply', '-f', path.join(dir, 'gateway.yaml')]);
    assert.equal(created.code, 0, created.stderr);
    assert.deepEqual(created.stdout.trim().split('\n'), [
      'gatewayclass.gateway.networking.k8s.io/portolan created',
      'gateway.gateway.networking.k8s.io/web created',
      'httproute.gateway.networking.k8s.io/web created',
    ]);
    await writeFile(path.join(dir, 'gateway.yaml'), manifest('/v2'));
    requests.length = 0;
    const configured = await kubectl(['apply', '-f', path.join(dir, 'gateway.yaml')]);
    assert.equal(configured.code, 0, configured.stderr);
    assert.match(configured.stdout, /httproute\.gateway\.networking\.k8s\.io\/web configured/);
    const patch = requests.find((r) =>
      r.startsWith('PATCH /apis/gateway.networking.k8s.io/v1/namespaces/default/httproutes/web'),
    );
    assert.match(patch ?? '', /fieldValidation=Strict application\/merge-patch\+json$/);
    const route = sim.objects.get({
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      namespace: 'default',
      name: 'web',
    });
    assert.equal(route?.metadata?.generation, 2);
  });

  it('get prints the printer columns of the CRDs', async () => {
    const res = await kubectl(['get', 'gatewayclass,gateway,httproute']);
    assert.equal(res.code, 0, res.stderr);
    const [gcHeader, gcRow, , gwHeader, gwRow, , rtHeader, rtRow] = rows(res.stdout);
    assert.deepEqual(gcHeader, ['NAME', 'CONTROLLER', 'ACCEPTED', 'AGE']);
    assert.deepEqual(gcRow?.slice(0, 3), [
      'gatewayclass.gateway.networking.k8s.io/portolan',
      'portolan.dev/gateway-controller',
      'Unknown',
    ]);
    assert.deepEqual(gwHeader, ['NAME', 'CLASS', 'ADDRESS', 'PROGRAMMED', 'AGE']);
    assert.deepEqual(gwRow?.slice(0, 3), ['gateway.gateway.networking.k8s.io/web', 'portolan', 'Unknown']);
    assert.deepEqual(rtHeader, ['NAME', 'HOSTNAMES', 'AGE']);
    assert.deepEqual(rtRow?.slice(0, 2), ['httproute.gateway.networking.k8s.io/web', '["web.example.com"]']);
  });

  it('describe shows the route with the defaults the schema applied', async () => {
    const res = await kubectl(['describe', 'httproute', 'web']);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /^Name:\s+web$/m);
    assert.match(res.stdout, /^API Version:\s+gateway\.networking\.k8s\.io\/v1$/m);
    assert.match(
      res.stdout,
      /Backend Refs:\n\s+Group:\s*\n\s+Kind:\s+Service\n\s+Name:\s+web\n\s+Port:\s+8080\n\s+Weight:\s+1/,
    );
    assert.match(res.stdout, /Path:\n\s+Type:\s+PathPrefix\n\s+Value:\s+\/v2/);
  });

  it('a status patch through /status shows in the columns and leaves the generation', async () => {
    const status = {
      status: {
        addresses: [{ value: '192.0.2.7' }],
        conditions: [
          {
            type: 'Programmed',
            status: 'True',
            reason: 'Programmed',
            message: 'ok',
            lastTransitionTime: '2024-05-01T10:00:00Z',
          },
        ],
      },
    };
    const patched = await kubectl([
      'patch',
      'gateway',
      'web',
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify(status),
    ]);
    assert.equal(patched.code, 0, patched.stderr);
    assert.equal(patched.stdout.trim(), 'gateway.gateway.networking.k8s.io/web patched');
    const res = await kubectl(['get', 'gtw', 'web']);
    assert.deepEqual(rows(res.stdout)[1]?.slice(0, 4), ['web', 'portolan', '192.0.2.7', 'True']);
    const gen = await kubectl(['get', 'gateway', 'web', '-o', 'jsonpath={.metadata.generation}']);
    assert.equal(gen.stdout, '1');
  });

  it('a strategic merge patch is refused, as CRDs take none', async () => {
    const res = await kubectl(['patch', 'gateway', 'web', '-p', '{"spec":{"gatewayClassName":"other"}}']);
    assert.notEqual(res.code, 0);
    assert.match(
      res.stderr,
      /application\/strategic-merge-patch\+json is not supported by gateway\.networking\.k8s\.io\/v1, Kind=Gateway/,
    );
  });

  it('an invalid object is refused with the field errors of the schema and its rules', async () => {
    await writeFile(path.join(dir, 'broken.yaml'), invalidRoute);
    const res = await kubectl(['apply', '-f', path.join(dir, 'broken.yaml')]);
    assert.equal(res.code, 1);
    assert.equal(
      res.stderr.trim(),
      [
        'The HTTPRoute "broken" is invalid: ',
        '* spec.rules[0].backendRefs[0].port: Invalid value: 70000: spec.rules[0].backendRefs[0].port in body should be less than or equal to 65535',
        `* spec.rules[0].matches[0].path: Invalid value: "object": value must be an absolute path and start with '/' when type one of ['Exact', 'PathPrefix']`,
      ].join('\n'),
    );
  });

  it('an unknown field is refused under kubectl’s strict validation', async () => {
    await writeFile(
      path.join(dir, 'typo.yaml'),
      manifest('/v2').replace('gatewayClassName: portolan', 'gatewayClassName: portolan\n  gatewayclass: x'),
    );
    const res = await kubectl(['apply', '-f', path.join(dir, 'typo.yaml')]);
    assert.notEqual(res.code, 0);
    assert.match(res.stderr, /strict decoding error: unknown field "spec\.gatewayclass"/);
  });
});
