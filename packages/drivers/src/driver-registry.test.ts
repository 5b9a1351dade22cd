import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApplianceDriver } from '@portolan/appliance-driver';
import type { DriverKind } from '@portolan/desired-state';
import { parseFleetConfig } from '@portolan/fleet-config';
import { DriverRegistry } from './driver-registry.ts';
import { DriverLoadError } from './errors.ts';

const { config } = parseFleetConfig(`
version: 1
clusters: [{ name: c1 }]
appliances:
  - { name: edge, driver: haproxy, haproxy: { configDir: /tmp/portolan-registry-test, masterSocket: /tmp/portolan-registry-test/master.sock } }
bus: { url: nats://127.0.0.1:4222 }
store: { url: postgres://x@127.0.0.1/x }
leases: { redisUrl: redis://127.0.0.1:6379 }
secrets: { keyFile: ./key }
`);
const edge = config.appliances[0]!;

/** A driver that is only its kind, and counts closes (the registry builds and closes; nothing else is called). */
function stub(kind: DriverKind): ApplianceDriver<unknown> & { closed: number } {
  const driver = { kind, closed: 0, close: async () => void driver.closed++ };
  return driver as unknown as ApplianceDriver<unknown> & { closed: number };
}

test('the HAProxy driver is loaded lazily by package name and built from the appliance section', async () => {
  const driver = await new DriverRegistry().create(edge, '.');
  try {
    assert.equal(driver.kind, 'haproxy');
  } finally {
    await driver.close();
  }
});

test('a registered factory overrides the package; a driver of the wrong kind is refused and closed', async () => {
  const fake = stub('haproxy');
  assert.equal(await new DriverRegistry().register('haproxy', async () => fake).create(edge, '.'), fake);
  const wrongKind = stub('vtm');
  await assert.rejects(
    new DriverRegistry().register('haproxy', async () => wrongKind).create(edge, '.'),
    DriverLoadError,
  );
  assert.equal(wrongKind.closed, 1);
});
