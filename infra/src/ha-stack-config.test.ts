import { test } from 'node:test';
import assert from 'node:assert/strict';
import { haStackConfig, haStackEndpoints, nodeCommand } from './ha-stack-config.ts';
import { siteNetworkLayout } from './site-network.ts';

test('the HA stack takes 17 ports from its base port, under its own state folder', () => {
  const config = haStackConfig({}, { PORTOLAN_HA_BASE_PORT: '40000', PORTOLAN_HA_STATE_DIR: '/srv/ha' });
  assert.equal(config.stateDir, '/srv/ha');
  assert.deepEqual(config.nats[2], { client: 40006, cluster: 40007, monitor: 40008 });
  assert.deepEqual(
    [config.postgres, config.redis, config.sentinels],
    [
      [40010, 40011],
      [40012, 40013],
      [40014, 40015, 40016],
    ],
  );
  assert.throws(() => haStackConfig({}, { PORTOLAN_HA_BASE_PORT: '65530' }), /PORTOLAN_HA_BASE_PORT=65530/);
});

test('its endpoints name every node: NATS URLs, a multi-host Postgres URL, the Sentinels', () => {
  const e = haStackEndpoints(haStackConfig({}, { PORTOLAN_HA_BASE_PORT: '40000' }));
  assert.equal(e.natsUrl, 'nats://127.0.0.1:40000,nats://127.0.0.1:40003,nats://127.0.0.1:40006');
  assert.equal(
    e.postgresUrl,
    'postgres://portolan@127.0.0.1:40010,127.0.0.1:40011/portolan?target_session_attrs=read-write',
  );
  assert.equal(e.redisUrl, 'redis-sentinel://127.0.0.1:40014,127.0.0.1:40015,127.0.0.1:40016/portolan');
});

test('placed in sites, each node binds its site address, runs in its namespace, and clients name those addresses', () => {
  const sites = siteNetworkLayout(40000);
  const config = haStackConfig({ sites }, { PORTOLAN_HA_BASE_PORT: '40000' });
  const [a, b, c] = [sites.sites.a.address, sites.sites.b.address, sites.sites.c.address];
  const e = haStackEndpoints(config);
  assert.deepEqual(e.natsUrls, [`nats://${a}:40000`, `nats://${b}:40003`, `nats://${c}:40006`]);
  assert.equal(e.postgresUrl, `postgres://portolan@${a}:40010,${b}:40011/portolan?target_session_attrs=read-write`);
  assert.deepEqual(
    e.sentinels.map((s) => s.host),
    [a, b, c],
  );
  const run = nodeCommand(config, 'redis-2', 'redis-server', ['--port', '40013']);
  assert.deepEqual([run.command, ...run.args].slice(-6), [
    'netns',
    'exec',
    sites.sites.b.namespace,
    'redis-server',
    '--port',
    '40013',
  ]);
  assert.deepEqual(nodeCommand(haStackConfig({}), 'redis-2', 'redis-server', []), {
    command: 'redis-server',
    args: [],
  });
});
