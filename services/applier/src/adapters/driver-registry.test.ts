import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFleetConfig } from '@portolan/fleet-config';
import { DriverRegistry } from './driver-registry.ts';
import { DriverLoadError } from '../errors.ts';
import { FakeAppliance, FakeApplianceDriver } from '../testing/fake-appliance.ts';

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

test('the HAProxy driver is loaded lazily by package name and built from the appliance section', async () => {
  const driver = await new DriverRegistry().create(edge, '.');
  try {
    assert.equal(driver.kind, 'haproxy');
  } finally {
    await driver.close();
  }
});

test('a registered factory overrides the package; a driver of the wrong kind is refused', async () => {
  const fake = new FakeApplianceDriver(new FakeAppliance());
  assert.equal(await new DriverRegistry().register('haproxy', async () => fake).create(edge, '.'), fake);
  const wrongKind = new FakeApplianceDriver(new FakeAppliance(), 'vtm');
  await assert.rejects(
    new DriverRegistry().register('haproxy', async () => wrongKind).create(edge, '.'),
    DriverLoadError,
  );
});
