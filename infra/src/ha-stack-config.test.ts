import { test } from 'node:test';
import assert from 'node:assert/strict';
import { haStackConfig, haStackEndpoints } from './ha-stack-config.ts';

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
