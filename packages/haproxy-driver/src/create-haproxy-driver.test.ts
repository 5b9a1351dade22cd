import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFleetConfig } from '@portolan/fleet-config';
import { textOf } from '@portolan/desired-state';
import { createHaproxyDriver } from './create-haproxy-driver.ts';

const fleet = `
version: 1
clusters: [{ name: dev }]
appliances:
  - name: edge
    driver: haproxy
    haproxy: { configDir: state/haproxy, masterSocket: state/haproxy/master.sock, minFreeSlots: 1, slotIncrement: 2 }
bus: { url: nats://127.0.0.1:1 }
store: { url: postgres://x@127.0.0.1:1/x }
leases: { redisUrl: redis://127.0.0.1:1 }
secrets: { keyFile: fleet.key }
`;

test('the factory builds the driver from a fleet-config entry: paths under the config dir, sizing from the section', async () => {
  const { config, baseDir } = parseFleetConfig(fleet, 'fleet.yaml', '/etc/portolan');
  const driver = createHaproxyDriver(config.appliances[0]!, baseDir);
  try {
    assert.equal(driver.kind, 'haproxy');
    assert.equal(driver.master.socketPath, '/etc/portolan/state/haproxy/master.sock');
    assert.equal(driver.runtime.socketPath, '/etc/portolan/state/haproxy/runtime.sock');
    const bundle = driver.render(
      {
        appliance: 'edge',
        driver: 'haproxy',
        bindings: [],
        conditions: [],
        certificates: [],
        virtualServices: [],
        pools: [
          {
            name: 'p',
            members: [],
            monitor: null,
            persistence: null,
            tlsToBackend: false,
            customization: null,
            services: [],
          },
        ],
      },
      null,
    );
    assert.equal(bundle.backends[0]?.slots.length, 2, 'minFreeSlots 1 rounded up to slotIncrement 2');
    assert.match(
      textOf(bundle.files.find((f) => f.path === 'haproxy.cfg')?.content ?? ''),
      /server-state-file \/etc\/portolan\/state\/haproxy\/server-state/,
    );
  } finally {
    await driver.close();
  }
});
