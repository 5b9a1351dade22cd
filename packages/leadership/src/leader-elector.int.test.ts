// Elections among candidates sharing one Redis: one holder at a time, graceful and crash handoffs, and a paused
// holder that resumes after its successor was granted a newer epoch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from '@portolan/store';
import { PgEpochStore } from './adapters/pg-epoch-store.ts';
import type { LeaderEvent } from './leader-elector.ts';
import { startChildCandidate } from './testing/child-candidate.ts';
import { defaults, electorFixture, fast, unique } from './testing/elector-fixture.ts';

const fx = electorFixture();

test('one holder at a time among three candidates, through handoffs; epochs strictly increase', async () => {
  const group = `g${unique()}`;
  const prefix = `t${unique()}:`;
  const candidates = ['a', 'b', 'c'].map((h) => fx.elector(group, h, fast, prefix));
  try {
    for (const c of candidates) c.e.start();
    let maxAtOnce = 0;
    const leaders = new Set<string>();
    for (let i = 0; i < 150; i++) {
      const now = candidates.filter((c) => c.e.current() !== null);
      maxAtOnce = Math.max(maxAtOnce, now.length);
      for (const c of now) leaders.add(c.e.holder);
      // Force two handoffs by stopping whoever leads.
      if ((i === 40 || i === 90) && now[0] !== undefined) await now[0].close();
      await sleep(20);
    }
    assert.equal(maxAtOnce, 1, 'two candidates believed they led at the same time');
    assert.ok(leaders.size >= 3, `leadership should have moved to all three, saw ${[...leaders].join(',')}`);
    const epochs = (await fx.history(group)).map((h) => h.epoch);
    assert.deepEqual(
      epochs,
      [...epochs].sort((x, y) => x - y),
    );
    assert.equal(new Set(epochs).size, epochs.length);
  } finally {
    await Promise.all(candidates.map((c) => c.close()));
  }
});

test('graceful handoff: a stopped leader releases and a follower leads within 2 s (default timings)', async () => {
  const group = `g${unique()}`;
  const prefix = `t${unique()}:`;
  const leader = startChildCandidate(fx.childArgs(group, 'old', defaults, prefix));
  const follower = fx.elector(group, 'new', defaults, prefix);
  try {
    await leader.waitFor((l) => l.type === 'elected', 10_000);
    follower.e.start();
    await sleep(1500);
    assert.equal(follower.e.current(), null, 'the follower must not lead while the lease is held');
    const stoppedAt = Date.now();
    leader.kill('SIGTERM');
    const l = await follower.e.waitForLeadership();
    const handoffMs = Date.now() - stoppedAt;
    assert.ok(handoffMs <= 2000, `graceful handoff took ${handoffMs} ms`);
    assert.ok(leader.lines.some((x) => x.type === 'lost' && x.reason === 'stopped'));
    assert.equal(l.epoch, 2);
  } finally {
    leader.kill();
    await follower.close();
  }
});

test('crash takeover: after SIGKILL of the holder a follower leads within 6 s (default timings)', async () => {
  const group = `g${unique()}`;
  const prefix = `t${unique()}:`;
  const leader = startChildCandidate(fx.childArgs(group, 'crashing', defaults, prefix));
  const follower = fx.elector(group, 'survivor', defaults, prefix);
  try {
    await leader.waitFor((l) => l.type === 'elected', 10_000);
    follower.e.start();
    await sleep(300);
    const killedAt = Date.now();
    leader.kill('SIGKILL');
    await follower.e.waitForLeadership();
    const takeoverMs = Date.now() - killedAt;
    assert.ok(takeoverMs <= 6000, `crash takeover took ${takeoverMs} ms`);
    // The dead holder's key lives until ttl after its last renewal, which was at most one renew period before the kill.
    assert.ok(
      takeoverMs >= defaults.ttlMs - defaults.renewEveryMs - 250,
      `took over after ${takeoverMs} ms: before the dead holder's lease could have expired`,
    );
  } finally {
    leader.kill();
    await follower.close();
  }
});

test('SIGSTOP past the TTL then SIGCONT: the old holder is aborted, its record is refused, no write with the old epoch lands after the new grant', async () => {
  const group = `g${unique()}`;
  const prefix = `t${unique()}:`;
  const old = startChildCandidate(fx.childArgs(group, 'paused', fast, prefix));
  const successor = fx.elector(group, 'successor', fast, prefix);
  try {
    const elected = await old.waitFor((l) => l.type === 'elected', 10_000);
    assert.equal(elected.epoch, 1);
    await sleep(300); // a few fenced writes under epoch 1
    old.kill('SIGSTOP');
    successor.e.start();
    const l = await successor.e.waitForLeadership();
    assert.equal(l.epoch, 2);
    await sleep(2 * fast.ttlMs);
    const resumedAt = Date.now();
    old.kill('SIGCONT');
    const lost = await old.waitFor((x) => x.type === 'lost' && x.epoch === 1, 3000);
    assert.ok(lost.at - resumedAt < 1000, `the old leader noticed after ${lost.at - resumedAt} ms`);
    assert.equal(lost.reason, 'validity-expired');
    await old.waitFor((x) => x.type === 'write-refused' && x.epoch === 1, 3000);
    assert.ok(!old.lines.some((x) => x.type === 'write-accepted-after-loss'));
    // The successor's record is accepted; nothing with epoch 1 committed after epoch 2 was granted.
    await fx.database.db.transaction().execute(async (trx) => {
      await l.assertEpochCurrent(trx);
    });
    const late = await sql<{
      n: string;
    }>`SELECT count(*) AS n FROM fenced_writes w WHERE w.epoch = 1 AND w.at >= (SELECT acquired_at FROM leader_epoch_history WHERE group_name = ${group} AND epoch = 2)`.execute(
      fx.database.db,
    );
    assert.equal(Number(late.rows[0]?.n), 0);
    const early = await sql<{ n: string }>`SELECT count(*) AS n FROM fenced_writes WHERE epoch = 1`.execute(
      fx.database.db,
    );
    assert.ok(Number(early.rows[0]?.n) > 0, 'the old leader wrote while it was current');
  } finally {
    old.kill('SIGCONT');
    old.kill();
    await successor.close();
  }
});

test('a holder whose epoch was superseded (the lease store split) ends its term, gives the lease back, and the group leads again under a newer epoch', async () => {
  const group = `g${unique()}`;
  const prefix = `t${unique()}:`;
  const a = fx.elector(group, 'a', fast, prefix);
  try {
    a.e.start();
    const first = await a.e.waitForLeadership();
    // Another holder is granted an epoch while `a` still holds its key: what a second Redis master gives during a
    // partition, or a replica promoted without the key.
    const other = await new PgEpochStore(fx.database.db).grant(group, 'elsewhere', 'another-run-id', () => 0);
    assert.ok(other.epoch > first.epoch);
    const lost = await eventuallyEvent(a, (ev) => ev.type === 'lost' && ev.epoch === first.epoch);
    assert.equal(lost.type === 'lost' ? lost.reason : null, 'superseded');
    const again = await a.e.waitForLeadership();
    assert.ok(again.epoch > other.epoch, `led again under epoch ${again.epoch}, after ${other.epoch}`);
    await again.assertEpochCurrent();
  } finally {
    await a.close();
  }
});

/** The first event of `c` that `match` accepts, waiting up to 5 s. */
async function eventuallyEvent(
  c: { events: readonly LeaderEvent[] },
  match: (ev: LeaderEvent) => boolean,
): Promise<LeaderEvent> {
  for (const deadline = Date.now() + 5000; Date.now() < deadline; await sleep(20)) {
    const found = c.events.find(match);
    if (found !== undefined) return found;
  }
  return assert.fail(`no such event in ${JSON.stringify(c.events)}`);
}
