// The fleet config the demo launcher writes (`portolan up`, and every end-to-end pipeline) must pass the fleet
// config schema, or no service of the pipeline starts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { demoAppliances, demoFleetConfig, demoLayout } from '@portolan/infra';
import { parseFleetConfig } from '@portolan/fleet-config';

const endpoints = {
  postgresUrl: 'postgres://portolan@127.0.0.1:15432/portolan',
  natsUrl: 'nats://127.0.0.1:14222',
  redisUrl: 'redis://127.0.0.1:16379',
};
const haproxy = {
  dir: '/srv/demo dir/haproxy',
  masterSocket: '/srv/demo dir/haproxy/master.sock',
  httpPort: 8080,
  httpsPort: 8443,
};

test("portolan up's fleet config is valid: HAProxy edge, vTM and LoadMaster (Ingress mode) on the demo ports", () => {
  const layout = demoLayout('/srv/demo dir');
  const { config } = parseFleetConfig(demoFleetConfig({ layout, appliances: demoAppliances, endpoints, haproxy }));
  assert.deepEqual(
    config.appliances.map((a) => [a.name, a.driver, a.ingressControllers]),
    [
      ['edge', 'haproxy', ['portolan.dev/ingress-controller']],
      ['vtm', 'vtm', ['pulsesecure.net/vtm-ingress-controller']],
      ['loadmaster', 'loadmaster', ['portolan.dev/loadmaster']],
    ],
  );
  assert.equal(config.appliances[0]!.haproxy?.configDir, '/srv/demo dir/haproxy', 'paths with spaces survive');
  assert.equal(config.appliances[1]!.vtm?.url, 'http://127.0.0.1:9070');
  assert.equal(config.appliances[2]!.loadmaster?.url, 'https://127.0.0.1:9443');
  assert.equal(config.appliances[2]!.loadmaster?.mode, 'ingress');
  assert.equal(config.clusters[0]!.kubeconfig, '/srv/demo dir/kubeconfig');
  assert.equal(config.bus.stream, 'PORTOLAN');
  assert.equal(config.bus.subjectPrefix, '');
});

test('a test pipeline config carries its ports, bus stream and prefix, lease timings, drift settings and Service mode', () => {
  const layout = demoLayout('/tmp/p', { ports: { vtm: 40001, loadmaster: 40002 } });
  const { config } = parseFleetConfig(
    demoFleetConfig({
      layout,
      endpoints,
      haproxy,
      appliances: [
        {
          name: 'lm-1a2b3c',
          driver: 'loadmaster',
          ingressControllers: ['x.dev/lm'],
          replicas: ['a'],
          mode: 'service',
          drift: { intervalSeconds: 1, policy: 'report' },
        },
        { name: 'vtm-1a2b3c', driver: 'vtm', ingressControllers: ['x.dev/vtm'], replicas: ['b'] },
      ],
      bus: { stream: 'E2E_1a2b3c', subjectPrefix: 'e2e1a2b3c' },
      leases: { ttlMs: 2000, renewEveryMs: 400 },
      heartbeatSeconds: 1,
    }),
  );
  assert.equal(config.appliances[0]!.loadmaster?.mode, 'service');
  assert.equal(config.appliances[0]!.loadmaster?.url, 'https://127.0.0.1:40002');
  assert.deepEqual(config.appliances[0]!.drift, { intervalSeconds: 1, policy: 'report' });
  assert.equal(config.appliances[1]!.vtm?.url, 'http://127.0.0.1:40001');
  assert.deepEqual([config.bus.stream, config.bus.subjectPrefix], ['E2E_1a2b3c', 'e2e1a2b3c']);
  assert.deepEqual([config.leases.ttlMs, config.leases.renewEveryMs, config.leases.retryEveryMs], [2000, 400, 500]);
  assert.equal(config.clusters[0]!.watch.heartbeatSeconds, 1);
});
