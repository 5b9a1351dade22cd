import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFleetConfig, FleetConfigError } from './load-fleet-config.ts';

/** A valid config with the given `bus`, `store` and `leases` lines. */
const fleet = (
  bus: string,
  leases: string,
  store = '{ url: postgres://portolan@127.0.0.1:15432/portolan }',
): string => `
version: 1
clusters: [{ name: dev }]
appliances:
  - name: edge
    driver: haproxy
    haproxy: { configDir: state/haproxy, masterSocket: state/haproxy/master.sock }
bus: ${bus}
store: ${store}
leases: ${leases}
secrets: { keyFile: secrets/fleet.key }
`;
const single = fleet('{ url: nats://127.0.0.1:14222 }', '{ redisUrl: redis://127.0.0.1:16379 }');

function problemsOf(text: string): readonly string[] {
  try {
    parseFleetConfig(text);
  } catch (e) {
    assert.ok(e instanceof FleetConfigError);
    return e.problems;
  }
  assert.fail('expected a FleetConfigError');
}

test('a one-node config parses as before: one URL per engine, nothing added to its hash', () => {
  const { config, hash } = parseFleetConfig(single);
  assert.equal(config.bus.url, 'nats://127.0.0.1:14222');
  assert.deepEqual(Object.keys(config.leases).sort(), ['redisUrl', 'renewEveryMs', 'retryEveryMs', 'ttlMs']);
  // The hash this config had before engine lists existed (computed with that schema): a planner input must not change for a config that did not.
  assert.equal(hash, 'e9dbae9a718013aa17d9906479b7f24cae836297d71e9e1b634959560c7b8c6e');
});

test('a NATS cluster is a list of URLs, read as the comma-separated string every bus client splits', () => {
  const { config } = parseFleetConfig(
    fleet(
      '{ url: [nats://10.0.0.1:4222, nats://10.0.0.2:4222, nats://10.0.0.3:4222], replicas: 3 }',
      '{ redisUrl: redis://r:6379 }',
    ),
  );
  assert.equal(config.bus.url, 'nats://10.0.0.1:4222,nats://10.0.0.2:4222,nats://10.0.0.3:4222');
  assert.equal(config.bus.replicas, 3);
  assert.deepEqual(problemsOf(fleet('{ url: [] }', '{ redisUrl: redis://r:6379 }')), [
    'bus.url: Too small: expected array to have >=1 items',
  ]);
});

test('Sentinels name the lease store as a redis-sentinel URL; a Redis URL beside them is refused', () => {
  const sentinels = '[{ host: 10.0.0.1, port: 26379 }, { host: 10.0.0.2, port: 26379 }]';
  const { config } = parseFleetConfig(fleet('{ url: nats://n:4222 }', `{ sentinels: ${sentinels}, sentinelName: lb }`));
  assert.equal(config.leases.redisUrl, 'redis-sentinel://10.0.0.1:26379,10.0.0.2:26379/lb');
  assert.equal(config.leases.sentinelName, 'lb');
  const unnamed = parseFleetConfig(fleet('{ url: nats://n:4222 }', `{ sentinels: ${sentinels} }`)).config;
  assert.equal(unnamed.leases.redisUrl, 'redis-sentinel://10.0.0.1:26379,10.0.0.2:26379/portolan');
  assert.deepEqual(
    problemsOf(fleet('{ url: nats://n:4222 }', `{ redisUrl: redis://r:6379, sentinels: ${sentinels} }`)),
    ['leases.sentinels: give redisUrl or sentinels, not both'],
  );
  assert.deepEqual(problemsOf(fleet('{ url: nats://n:4222 }', '{ ttlMs: 4000 }')), [
    'leases.redisUrl: required (or name sentinels)',
  ]);
});

test('the store URL may name a primary and its standby in libpq multi-host form', () => {
  const url = 'postgres://portolan@10.0.0.1:5432,10.0.0.2:5432/portolan?target_session_attrs=read-write';
  const { config } = parseFleetConfig(
    fleet('{ url: nats://n:4222 }', '{ redisUrl: redis://r:6379 }', `{ url: "${url}" }`),
  );
  assert.equal(config.store.url, url);
});
