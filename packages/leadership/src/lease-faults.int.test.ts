// A leader cut off from Redis stops acting before its key expires; killed connections elect again; and the
// status read (`portolan leader status`, the leader service's metrics) shows holder, epoch and TTL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { PgEpochStore } from './adapters/pg-epoch-store.ts';
import { RedisLeaseClient } from './adapters/redis-lease-client.ts';
import { groupStatuses } from './group-status.ts';
import { electorFixture, fast, unique } from './testing/elector-fixture.ts';
import { blackholeProxy } from './testing/redis-faults.ts';

const fx = electorFixture();

test('leader status shows the holder, the epoch and the remaining TTL', async () => {
  const group = `g${unique()}`;
  const prefix = `t${unique()}:`;
  const c = fx.elector(group, 'replica-7', fast, prefix);
  const lease = new RedisLeaseClient(fx.redisUrl, { commandTimeoutMs: 500 });
  try {
    c.e.start();
    const l = await c.e.waitForLeadership();
    const [s] = await groupStatuses([group], lease, new PgEpochStore(fx.database.db), prefix);
    assert.equal(s?.holder, 'replica-7');
    assert.equal(s?.epoch, l.epoch);
    assert.ok((s?.remainingTtlMs ?? 0) > 0 && (s?.remainingTtlMs ?? 0) <= fast.ttlMs);
    await c.close();
    const [after] = await groupStatuses([group], lease, new PgEpochStore(fx.database.db), prefix);
    assert.equal(after?.holder, null);
  } finally {
    await c.close();
    lease.close();
  }
});

test('a blackholed Redis link: the leader stops acting before its lease expires in Redis', async () => {
  const group = `g${unique()}`;
  const prefix = `t${unique()}:`;
  const target = new URL(fx.redisUrl);
  const proxy = await blackholeProxy(Number(target.port));
  const c = fx.elector(group, 'cut-off', fast, prefix, `redis://127.0.0.1:${proxy.port}`);
  const direct = new RedisLeaseClient(fx.redisUrl, { commandTimeoutMs: 1000 });
  try {
    c.e.start();
    const l = await c.e.waitForLeadership();
    await sleep(300);
    proxy.blackhole = true;
    await new Promise((resolve) => l.signal.addEventListener('abort', resolve, { once: true }));
    const held = await direct.inspect(`${prefix}lease:${group}`);
    assert.ok(
      held !== null && held.remainingMs > 0,
      'the key must still be alive in Redis when the leader stopped acting',
    );
    assert.equal(l.signal.reason, 'validity-expired');
    assert.equal(l.isValid(), false);
  } finally {
    proxy.blackhole = false;
    await c.close();
    direct.close();
    await proxy.close();
  }
});

test('killed Redis client connections: some candidate leads again within TTL + 5 s', async () => {
  const group = `g${unique()}`;
  const prefix = `t${unique()}:`;
  const candidates = ['x', 'y'].map((h) => fx.elector(group, h, fast, prefix));
  const admin = new RedisLeaseClient(fx.redisUrl, { commandTimeoutMs: 1000 });
  try {
    for (const c of candidates) c.e.start();
    await Promise.race(candidates.map((c) => c.e.waitForLeadership()));
    await admin.ready(2000);
    const ids = await Promise.all(candidates.map((c) => c.lease.redis.client('ID')));
    for (const id of ids) await admin.redis.client('KILL', 'ID', String(id));
    const killedAt = Date.now();
    const deadline = killedAt + fast.ttlMs + 5000;
    let leader: string | null = null;
    while (Date.now() < deadline && leader === null) {
      leader = candidates.find((c) => c.e.current() !== null)?.e.holder ?? null;
      await sleep(20);
    }
    assert.ok(leader !== null, 'nobody leads after the connections were killed');
    await sleep(fast.ttlMs);
    assert.equal(candidates.filter((c) => c.e.current() !== null).length, 1, 'exactly one leader afterwards');
  } finally {
    await Promise.all(candidates.map((c) => c.close()));
    admin.close();
  }
});
