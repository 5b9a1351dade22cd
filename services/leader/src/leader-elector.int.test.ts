import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, testStack } from '@portolan/infra';
import { createTestDatabase, sql, type TestDatabase } from '@portolan/store';
import { LeaderElector, type LeaderEvent } from './leader-elector.ts';
import { PgEpochStore } from './adapters/pg-epoch-store.ts';
import { RedisLeaseClient } from './adapters/redis-lease-client.ts';
import { leaseTimings, type LeaseTimings } from './core/lease-timings.ts';
import { StaleEpochError } from './errors.ts';
import { startChildCandidate } from './testing/child-candidate.ts';
import { groupStatuses } from './group-status.ts';

let database: TestDatabase;
let redisUrl: string;
before(async () => {
  const stack = await testStack();
  redisUrl = stack.redisUrl;
  database = await createTestDatabase(stack.postgresUrl);
  await sql`CREATE TABLE fenced_writes (id bigserial PRIMARY KEY, epoch bigint NOT NULL, holder text NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())`.execute(
    database.db,
  );
});
after(async () => {
  await database.drop();
});

const timingsOf = (ttlMs: number, renewEveryMs: number, retryEveryMs: number): LeaseTimings => {
  const r = leaseTimings({ ttlMs, renewEveryMs, retryEveryMs });
  assert.ok(r.ok);
  return r.timings;
};
const defaults = timingsOf(4000, 1000, 500);
const fast = timingsOf(1000, 200, 100);
const unique = (): string => randomBytes(4).toString('hex');

/** An in-process elector with its own Redis connection, recording events with wall-clock times. */
const leases = new WeakMap<object, RedisLeaseClient>();
const leaseOf = (c: object): RedisLeaseClient => leases.get(c)!;

function elector(
  group: string,
  holder: string,
  timings: LeaseTimings,
  prefix: string,
  url = redisUrl,
): { e: LeaderElector; events: (LeaderEvent & { at: number })[]; close: () => Promise<void> } {
  const lease = new RedisLeaseClient(url, { commandTimeoutMs: timings.commandTimeoutMs });
  const events: (LeaderEvent & { at: number })[] = [];
  const e = new LeaderElector({
    group,
    holder,
    timings,
    lease,
    epochs: new PgEpochStore(database.db),
    keyPrefix: prefix,
    onEvent: (ev) => events.push({ ...ev, at: Date.now() }),
  });
  const handle = {
    e,
    events,
    close: async () => {
      await e.stop();
      lease.close();
    },
  };
  leases.set(handle, lease);
  return handle;
}

function childArgs(group: string, holder: string, t: LeaseTimings, prefix: string): Record<string, string> {
  return {
    redis: redisUrl,
    db: database.url,
    group,
    holder,
    prefix,
    ttl: String(t.ttlMs),
    renew: String(t.renewEveryMs),
    retry: String(t.retryEveryMs),
  };
}

async function history(
  group: string,
): Promise<{ epoch: number; holder: string; acting_delay_ms: number; redis_run_id: string | null }[]> {
  const rows = await database.db
    .selectFrom('leader_epoch_history')
    .select(['epoch', 'holder', 'acting_delay_ms', 'redis_run_id'])
    .where('group_name', '=', group)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ ...r, epoch: Number(r.epoch) }));
}

test('one holder at a time among three candidates, through handoffs; epochs strictly increase', async () => {
  const group = `g${unique()}`;
  const prefix = `t${unique()}:`;
  const candidates = ['a', 'b', 'c'].map((h) => elector(group, h, fast, prefix));
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
    const epochs = (await history(group)).map((h) => h.epoch);
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
  const leader = startChildCandidate(childArgs(group, 'old', defaults, prefix));
  const follower = elector(group, 'new', defaults, prefix);
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
  const leader = startChildCandidate(childArgs(group, 'crashing', defaults, prefix));
  const follower = elector(group, 'survivor', defaults, prefix);
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
  const old = startChildCandidate(childArgs(group, 'paused', fast, prefix));
  const successor = elector(group, 'successor', fast, prefix);
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
    await database.db.transaction().execute(async (trx) => {
      await l.assertEpochCurrent(trx);
    });
    const late = await sql<{
      n: string;
    }>`SELECT count(*) AS n FROM fenced_writes w WHERE w.epoch = 1 AND w.at >= (SELECT acquired_at FROM leader_epoch_history WHERE group_name = ${group} AND epoch = 2)`.execute(
      database.db,
    );
    assert.equal(Number(late.rows[0]?.n), 0);
    const early = await sql<{ n: string }>`SELECT count(*) AS n FROM fenced_writes WHERE epoch = 1`.execute(
      database.db,
    );
    assert.ok(Number(early.rows[0]?.n) > 0, 'the old leader wrote while it was current');
  } finally {
    old.kill('SIGCONT');
    old.kill();
    await successor.close();
  }
});

test('assertEpochCurrent refuses an older epoch and blocks a concurrent grant until the record commits', async () => {
  const group = `g${unique()}`;
  const epochs = new PgEpochStore(database.db);
  const first = await epochs.grant(group, 'a', 'run', () => 0);
  let granted = false;
  await database.db.transaction().execute(async (trx) => {
    await epochs.assertCurrent(group, first.epoch, trx);
    const pending = epochs
      .grant(group, 'b', 'run', () => 0)
      .then(() => {
        granted = true;
      });
    await sleep(200);
    assert.equal(granted, false, 'a grant must wait for the record transaction holding the share lock');
    void pending;
  });
  await sleep(100);
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
  const a = elector(group, 'a', fast, prefix, url);
  const b = elector(group, 'b', fast, prefix, url);
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
    const h = await history(group);
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

test('leader status shows the holder, the epoch and the remaining TTL', async () => {
  const group = `g${unique()}`;
  const prefix = `t${unique()}:`;
  const c = elector(group, 'replica-7', fast, prefix);
  const lease = new RedisLeaseClient(redisUrl, { commandTimeoutMs: 500 });
  try {
    c.e.start();
    const l = await c.e.waitForLeadership();
    const [s] = await groupStatuses([group], lease, new PgEpochStore(database.db), prefix);
    assert.equal(s?.holder, 'replica-7');
    assert.equal(s?.epoch, l.epoch);
    assert.ok((s?.remainingTtlMs ?? 0) > 0 && (s?.remainingTtlMs ?? 0) <= fast.ttlMs);
    await c.close();
    const [after] = await groupStatuses([group], lease, new PgEpochStore(database.db), prefix);
    assert.equal(after?.holder, null);
  } finally {
    await c.close();
    lease.close();
  }
});

test('a blackholed Redis link: the leader stops acting before its lease expires in Redis', async () => {
  const group = `g${unique()}`;
  const prefix = `t${unique()}:`;
  const target = new URL(redisUrl);
  const proxy = await blackholeProxy(Number(target.port));
  const c = elector(group, 'cut-off', fast, prefix, `redis://127.0.0.1:${proxy.port}`);
  const direct = new RedisLeaseClient(redisUrl, { commandTimeoutMs: 1000 });
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
  const candidates = ['x', 'y'].map((h) => elector(group, h, fast, prefix));
  const admin = new RedisLeaseClient(redisUrl, { commandTimeoutMs: 1000 });
  try {
    for (const c of candidates) c.e.start();
    await Promise.race(candidates.map((c) => c.e.waitForLeadership()));
    await admin.ready(2000);
    const ids = await Promise.all(candidates.map((c) => leaseOf(c).redis.client('ID')));
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

/** A TCP proxy to 127.0.0.1:port that can silently stop forwarding (a blackholed link: no RST, no data). */
async function blackholeProxy(port: number): Promise<{ port: number; blackhole: boolean; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const state = { port: 0, blackhole: false, close: async () => {} };
  const server = net.createServer((client) => {
    const upstream = net.connect(port, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => sockets.delete(s));
    }
    client.on('data', (d) => {
      if (!state.blackhole) upstream.write(d);
    });
    upstream.on('data', (d) => {
      if (!state.blackhole) client.write(d);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.port = (server.address() as net.AddressInfo).port;
  state.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return state;
}

function intervals(
  who: string,
  events: readonly (LeaderEvent & { at: number })[],
): { who: string; from: number; to: number }[] {
  const out: { who: string; from: number; to: number }[] = [];
  for (const e of events) {
    if (e.type === 'elected') out.push({ who, from: e.at, to: Number.POSITIVE_INFINITY });
    if (e.type === 'lost') {
      const open = out.find((t) => t.to === Number.POSITIVE_INFINITY);
      if (open) open.to = e.at;
    }
  }
  return out;
}

async function startRedis(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return child;
    await sleep(50);
  }
  child.kill('SIGKILL');
  throw new Error(`redis-server did not start on ${port}`);
}
