// Leases through Redis Sentinel: when the Redis master is killed, the Sentinels promote the replica and the
// electors, without a restart, elect a leader again under a new, larger epoch, and two terms never overlap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { LeaderElector, leaseTimings, PgEpochStore, RedisLeaseClient, type LeaderEvent } from '@portolan/leadership';
import { openDatabase } from '@portolan/store';
import { haStackFixture } from './ha-fixture.ts';

const fixture = haStackFixture();

/** One elector's terms as [from, to] wall-clock intervals with their epochs (an open term ends now). */
type Term = { holder: string; epoch: number; from: number; to: number };

function termsOf(holder: string, events: readonly (LeaderEvent & { at: number })[]): Term[] {
  const terms: Term[] = [];
  for (const ev of events) {
    if (ev.type === 'elected') terms.push({ holder, epoch: ev.epoch, from: ev.at, to: Infinity });
    if (ev.type === 'lost') {
      const open = terms.find((t) => t.epoch === ev.epoch && t.to === Infinity);
      if (open !== undefined) open.to = ev.at;
    }
  }
  return terms;
}

test('a Redis master killed: the lease is held again, under a larger epoch, with no two terms at once', async () => {
  const stack = fixture.stack;
  const timings = leaseTimings({ ttlMs: 2000, renewEveryMs: 400, retryEveryMs: 200 });
  assert.ok(timings.ok);
  const db = openDatabase(stack.endpoints.postgresNodeUrls[0], { max: 2 });
  const electors = ['a', 'b'].map((holder) => {
    const events: (LeaderEvent & { at: number })[] = [];
    const lease = new RedisLeaseClient(stack.endpoints.redisUrl, {
      commandTimeoutMs: timings.timings.commandTimeoutMs,
    });
    const elector = new LeaderElector({
      group: 'ha',
      holder,
      timings: timings.timings,
      lease,
      epochs: new PgEpochStore(db),
      onEvent: (ev) => events.push({ ...ev, at: performance.now() }),
    });
    return { holder, elector, lease, events };
  });
  try {
    for (const e of electors) e.elector.start();
    const first = await Promise.race(electors.map((e) => e.elector.waitForLeadership()));
    await sleep(1000);
    const master = await stack.redisMaster();
    assert.ok(master !== null);
    await stack.kill(master);
    const killed = performance.now();
    const regained = await Promise.race([
      (async () => {
        for (;;) {
          const now = electors.map((e) => e.elector.current()).find((l) => l !== null && l.epoch > first.epoch);
          if (now) return now;
          await sleep(50);
        }
      })(),
      sleep(30_000, null, { ref: false }),
    ]);
    assert.ok(regained !== null, 'a leader is elected again within 30 s');
    const seconds = (performance.now() - killed) / 1000;
    assert.notEqual(await stack.redisMaster(), master, 'the Sentinels promoted the replica');
    process.stdout.write(`# a leader acts again ${seconds.toFixed(2)} s after the Redis master was killed\n`);
    assert.ok(seconds < 15, `leadership came back after ${seconds} s`);

    const terms = electors.flatMap((e) => termsOf(e.holder, e.events)).sort((x, y) => x.from - y.from);
    for (let i = 1; i < terms.length; i++) {
      assert.ok(terms[i]!.from >= terms[i - 1]!.to, `terms overlap: ${JSON.stringify([terms[i - 1], terms[i]])}`);
      assert.ok(terms[i]!.epoch > terms[i - 1]!.epoch, 'each term has a larger epoch than the one before');
    }
  } finally {
    for (const e of electors) {
      await e.elector.stop();
      e.lease.close();
    }
    await db.destroy();
  }
});
