// The Postgres fence: a record holding the group's epoch row FOR SHARE blocks a grant, and a Redis that restarts
// without its data makes the next leader wait one TTL, so two leaders never both act.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '@portolan/infra';
import { PgEpochStore } from './adapters/pg-epoch-store.ts';
import { StaleEpochError } from './errors.ts';
import { electorFixture, fast, unique } from './testing/elector-fixture.ts';
import { intervals, startRedis } from './testing/redis-faults.ts';

const fx = electorFixture();

test('assertEpochCurrent refuses an older epoch and blocks a concurrent grant until the record commits', async () => {
  const group = `g${unique()}`;
  const epochs = new PgEpochStore(fx.database.db);
  const first = await epochs.grant(group, 'a', 'run', () => 0);
  let granted = false;
  let pending: Promise<void> | undefined;
  await fx.database.db.transaction().execute(async (trx) => {
    await epochs.assertCurrent(group, first.epoch, trx);
    pending = epochs
      .grant(group, 'b', 'run', () => 0)
      .then(() => {
        granted = true;
      });
    await sleep(200);
    assert.equal(granted, false, 'a grant must wait for the record transaction holding the share lock');
  });
  // Once the record transaction has committed, the waiting grant goes through (however loaded the machine is).
  await pending;
  assert.equal(granted, true);
  await assert.rejects(epochs.assertCurrent(group, first.epoch), StaleEpochError);
});

test('Redis restart without persistence: never two believed leaders; the new incarnation waits one TTL (epoch history)', async () => {
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'portolan-redis-'));
  const url = `redis://127.0.0.1:${port}`;
  let redis = await startRedis(port, dir);
  const group = `g${unique()}`;
  const prefix = `t${unique()}:`;
  const a = fx.elector(group, 'a', fast, prefix, url);
  const b = fx.elector(group, 'b', fast, prefix, url);
  try {
    a.e.start();
    await a.e.waitForLeadership();
    b.e.start();
    await sleep(300);
    redis.kill('SIGKILL');
    await new Promise((r) => redis.once('exit', r));
    redis = await startRedis(port, dir);
    const deadline = Date.now() + 8000;
    while (
      Date.now() < deadline &&
      !(a.events.some((e) => e.type === 'lost') && (a.e.current() ?? b.e.current()) !== null)
    )
      await sleep(50);
    const terms = [...intervals('a', a.events), ...intervals('b', b.events)].sort((x, y) => x.from - y.from);
    assert.ok(terms.length >= 2, `expected a second term after the restart: ${JSON.stringify(terms)}`);
    for (let i = 1; i < terms.length; i++) {
      assert.ok(terms[i]!.from >= terms[i - 1]!.to, `terms overlap: ${JSON.stringify(terms)}`);
    }
    const h = await fx.history(group);
    assert.equal(h[0]!.acting_delay_ms, 0);
    assert.notEqual(h[1]!.redis_run_id, h[0]!.redis_run_id);
    assert.equal(h[1]!.acting_delay_ms, fast.ttlMs, 'the first grant on the new incarnation must wait one TTL');
  } finally {
    await a.close();
    await b.close();
    redis.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});
