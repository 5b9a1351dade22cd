import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFleetConfig, FleetConfigError } from './load-fleet-config.ts';

const valid = `
version: 1
clusters:
  - name: dev
    kubeconfig: kube/dev.yaml
appliances:
  - name: edge
    driver: haproxy
    haproxy: { configDir: state/haproxy, masterSocket: state/haproxy/master.sock }
bus: { url: nats://127.0.0.1:14222 }
store: { url: postgres://portolan@127.0.0.1:15432/portolan }
leases: { redisUrl: redis://127.0.0.1:16379 }
secrets: { keyFile: secrets/fleet.key }
`;

function problemsOf(text: string): readonly string[] {
  try {
    parseFleetConfig(text);
  } catch (e) {
    assert.ok(e instanceof FleetConfigError);
    return e.problems;
  }
  assert.fail('expected a FleetConfigError');
}

test('a valid config gets defaults, absolute paths and a stable hash', () => {
  const a = parseFleetConfig(valid, 'fleet.yaml', '/etc/portolan');
  assert.equal(a.config.clusters[0]?.kubeconfig, '/etc/portolan/kube/dev.yaml');
  assert.equal(a.config.appliances[0]?.haproxy?.httpPort, 8080);
  assert.deepEqual(a.config.appliances[0]?.ingressControllers, ['portolan.dev/ingress-controller']);
  assert.equal(a.config.leases.ttlMs, 4000);
  const reformatted = parseFleetConfig(
    valid.replace('{ url: nats://127.0.0.1:14222 }', '\n  url: nats://127.0.0.1:14222'),
  );
  assert.equal(reformatted.hash, a.hash);
});

test('a typo in a field name is reported with its path', () => {
  const problems = problemsOf(valid.replace('driver: haproxy', 'drivr: haproxy\n    driver: haproxy'));
  assert.deepEqual(problems, ['appliances.0.drivr: unknown field']);
});

test('a bad value names the path and the reason', () => {
  const problems = problemsOf(valid.replace('name: dev', 'name: Dev_Cluster'));
  assert.equal(problems.length, 1);
  assert.match(problems[0]!, /^clusters\.0\.name: must be a DNS label/);
});

test('a driver without its section, and unknown cluster references, are errors', () => {
  const problems = problemsOf(valid.replace('driver: haproxy', 'driver: vtm\n    clusters: [prod]'));
  assert.ok(problems.includes('appliances.0.vtm: driver "vtm" needs a "vtm" section'), problems.join('\n'));
  assert.ok(problems.includes('appliances.0.haproxy: section "haproxy" does not apply to driver "vtm"'));
  assert.ok(problems.includes('appliances.0.clusters.0: unknown cluster "prod"'));
});

test('invalid YAML is a FleetConfigError, not a crash', () => {
  assert.match(problemsOf('version: [1')[0]!, /^YAML:/);
});
