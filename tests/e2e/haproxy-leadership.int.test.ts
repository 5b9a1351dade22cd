// End to end, a leader killed mid-reload and a stale leader resuming after its lease: two applier processes for one HAProxy appliance with the
// default lease timings (crash takeover bound 6 s); the leader is SIGKILLed or SIGSTOPped in the middle of a reload.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { watch } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { startPipeline, type Pipeline } from './pipeline-harness.ts';
import { endpointSlice, ingress, ingressClass, namespace, service } from './manifests.ts';
import { eventually } from './eventually.ts';

const ns = 'ha';
const pods = { a: ['127.0.22.1'], b: ['127.0.22.2'], c: ['127.0.22.3'], d: ['127.0.22.4', '127.0.22.5'] };
/** The bound for a crash takeover with the default lease timings. */
const takeoverBoundMs = 6000;
let p: Pipeline;

before(async () => {
  p = await startPipeline({
    // A short drift interval: HAProxy has no compare-and-set, so a stale writer's files are corrected by the leader's drift check.
    appliances: [
      {
        name: 'edge',
        driver: 'haproxy',
        ingressControllers: ['portolan.dev/ingress-controller'],
        replicas: ['edge-a', 'edge-b'],
        drift: { intervalSeconds: 3, policy: 'correct' },
        // No spare backends: a new Service is then a reload, which the kill below lands in the middle of.
        spareBackends: 0,
      },
    ],
    echoAddresses: Object.values(pods).flat(),
  });
  const names = ['a', 'b', 'c', 'd'] as const;
  await p.apply(
    [
      namespace(ns),
      ingressClass('portolan', 'portolan.dev/ingress-controller'),
      ...names.map((n) => service(ns, n, p.echoPort)),
      ...names.map((n) => endpointSlice(ns, n, pods[n], p.echoPort)),
      ingress(ns, 'a', {
        className: 'portolan',
        rules: [{ host: 'a.example.com', paths: [{ path: '/', type: 'Prefix', service: 'a' }] }],
      }),
    ].join(''),
  );
  await eventually(
    'a.example.com to be served',
    async () => assert.equal((await p.request('a.example.com', '/')).echo?.address, pods.a[0]),
    { context },
  );
  await settled();
});
after(async () => {
  await p?.stop();
});

const context = (): string => p.diagnostics();
const other = (id: string): string => (id === 'edge-a' ? 'edge-b' : 'edge-a');

/** Waits until HAProxy equals the head snapshot (read back, render, diff: nothing left to do). */
async function settled(): Promise<void> {
  await p.settled('edge');
}

async function currentLeader(): Promise<{ holder: string; epoch: number }> {
  return eventually(
    'a leader',
    async () => {
      const l = await p.leader('edge');
      assert.ok(l.holder !== null && l.epoch !== null, 'no leader');
      return { holder: l.holder, epoch: l.epoch };
    },
    { context },
  );
}

/**
 * Sends `signal` to the applier process `id` as soon as it starts writing HAProxy's configuration files (the
 * first step of a reload), i.e. in the middle of an apply. Resolves with the wall-clock time of the signal.
 */
function signalOnFirstWrite(id: string, signal: NodeJS.Signals): { fired: Promise<number>; close(): void } {
  let done = false;
  let resolveFired: (t: number) => void = () => {};
  const fired = new Promise<number>((resolve) => (resolveFired = resolve));
  const watcher = watch(p.haproxyConfigDir, { recursive: true }, (_event, file) => {
    const name = String(file ?? '');
    if (done || !/(^|\/)(haproxy\.cfg|maps\/|crt-lists\/)/.test(name)) return;
    done = true;
    p.process(`applier-${id}`).signal(signal);
    resolveFired(Date.now());
  });
  return { fired, close: () => watcher.close() };
}

test('SIGKILL of the leading applier in the middle of a reload: the follower takes over within 6 s and HAProxy ends equal to the planner output', async () => {
  const before = await currentLeader();
  const armed = signalOnFirstWrite(before.holder, 'SIGKILL');
  try {
    await p.apply(
      ingress(ns, 'b', {
        className: 'portolan',
        rules: [{ host: 'b.example.com', paths: [{ path: '/', type: 'Prefix', service: 'b' }] }],
      }),
    );
    const killedAt = await armed.fired;
    const term = await eventually(
      'the follower to take the lease',
      async () => {
        const row = await p.db
          .selectFrom('leader_epoch_history')
          .select(['epoch', 'holder', 'acquired_at'])
          .where('group_name', '=', p.appliance('edge'))
          .where('epoch', '>', String(before.epoch))
          .executeTakeFirst();
        assert.ok(row !== undefined, 'no new epoch yet');
        return row;
      },
      { timeoutMs: 20_000, context },
    );
    assert.equal(term.holder, other(before.holder));
    const takeoverMs = new Date(term.acquired_at).getTime() - killedAt;
    assert.ok(takeoverMs <= takeoverBoundMs, `takeover took ${takeoverMs} ms (bound ${takeoverBoundMs} ms)`);
  } finally {
    armed.close();
  }
  await eventually(
    'b.example.com to be served',
    async () => assert.equal((await p.request('b.example.com', '/')).echo?.address, pods.b[0]),
    { context },
  );
  await settled();
  const head = await p.db
    .selectFrom('snapshot_heads')
    .select('snapshot_id')
    .where('appliance', '=', p.appliance('edge'))
    .executeTakeFirstOrThrow();
  const byKilled = await p.db
    .selectFrom('applies')
    .select('id')
    .where('appliance', '=', p.appliance('edge'))
    .where('leader_id', '=', before.holder)
    .where('snapshot_id', '=', head.snapshot_id)
    .execute();
  assert.deepEqual(byKilled, [], 'the killed leader never recorded the apply it was in the middle of');
  assert.equal((await p.request('a.example.com', '/')).echo?.address, pods.a[0], 'what was served before still is');
});

test('restarting every process makes zero appliance writes', async () => {
  await settled();
  const leaderBefore = await currentLeader();
  const reloads = await p.haproxyReloads();
  const epochFile = p.haproxyEpoch();
  const lastId =
    (
      await p.db
        .selectFrom('applies')
        .select((eb) => eb.fn.max('id').as('id'))
        .executeTakeFirstOrThrow()
    ).id ?? '0';
  const order = ['kube-sim', 'watcher', 'planner', 'applier-edge-a', 'applier-edge-b'];
  for (const name of [...order].reverse()) await p.process(name).stop();
  for (const name of order) await p.process(name).start();
  const after = await eventually(
    'a new leadership term',
    async () => {
      const l = await currentLeader();
      assert.ok(l.epoch > leaderBefore.epoch, 'no new term yet');
      return l;
    },
    { timeoutMs: 20_000, context },
  );
  await sleep(5000); // a few head polls (2 s) and the planner's catch-up after the restart
  const rows = await p.db
    .selectFrom('applies')
    .select(['id', 'status', 'operations', 'leader_id', 'epoch'])
    .where('appliance', '=', p.appliance('edge'))
    .where('id', '>', lastId)
    .execute();
  for (const row of rows)
    assert.deepEqual(row.operations, [], `apply ${row.id} (${row.status}) after the restart sent operations`);
  assert.equal(await p.haproxyReloads(), reloads, 'no reload after the restart');
  assert.equal(p.haproxyEpoch(), epochFile, 'no write reached HAProxy (its epoch file is untouched)');
  assert.deepEqual(await p.pendingOperations('edge'), []);

  // The restarted pipeline is alive: a scale-up is applied under the new term, without a reload.
  await p.apply(endpointSlice(ns, 'a', [...pods.a, '127.0.22.2'], p.echoPort));
  await eventually(
    'the scale-up to be served',
    async () => {
      const seen = new Set<string>();
      for (let i = 0; i < 6; i++) seen.add((await p.request('a.example.com', '/')).echo?.address ?? '');
      assert.deepEqual([...seen].sort(), [pods.a[0], '127.0.22.2']);
    },
    { context },
  );
  assert.equal(await p.haproxyReloads(), reloads);
  assert.equal(p.haproxyEpoch(), after.epoch, 'the new term wrote under its epoch');
});

test('SIGSTOP of the leader past its lease, then SIGCONT: no write with the old epoch is accepted', async () => {
  const leader = await currentLeader();
  const follower = other(leader.holder);
  await p.process(`applier-${follower}`).start(); // a no-op when it runs already
  const armed = signalOnFirstWrite(leader.holder, 'SIGSTOP');
  let resumed = false;
  try {
    await p.apply(
      ingress(ns, 'c', {
        className: 'portolan',
        rules: [{ host: 'c.example.com', paths: [{ path: '/', type: 'Prefix', service: 'c' }] }],
      }),
    );
    const stoppedAt = await armed.fired;
    const pending = await p.pendingOperations('edge');
    assert.ok(pending.length > 0, 'the stopped leader left its apply unfinished');
    const next = await eventually(
      'the follower to take over',
      async () => {
        const l = await p.leader('edge');
        assert.equal(l.holder, follower);
        assert.ok(l.epoch !== null, 'its epoch is not granted yet');
        return l;
      },
      { timeoutMs: 20_000, context },
    );
    // The follower only gets the lease once the stopped leader's lease has expired: the pause is past the TTL.
    await eventually(
      'c.example.com to be served by the new leader',
      async () => assert.equal((await p.request('c.example.com', '/')).echo?.address, pods.c[0]),
      { context },
    );
    // The new leader applies a second snapshot while the old one is still stopped.
    await p.apply(
      ingress(ns, 'd', {
        className: 'portolan',
        rules: [{ host: 'd.example.com', paths: [{ path: '/', type: 'Prefix', service: 'd' }] }],
      }),
    );
    await eventually(
      'd.example.com to be served',
      async () => assert.ok(pods.d.includes((await p.request('d.example.com', '/')).echo?.address ?? '')),
      { context },
    );
    await settled();
    // What matters is that HAProxy holds an epoch of the new leadership (the takeover's, or a later one should the
    // new leader retake its lease), never the stopped leader's.
    const newest = async (): Promise<number> =>
      Number(
        (
          await p.db
            .selectFrom('leader_epoch_history')
            .select((eb) => eb.fn.max('epoch').as('epoch'))
            .where('group_name', '=', p.appliance('edge'))
            .executeTakeFirstOrThrow()
        ).epoch,
      );
    const tookOverAt = next.epoch ?? Number.POSITIVE_INFINITY;
    assert.ok(
      (p.haproxyEpoch() ?? 0) >= tookOverAt,
      `HAProxy records a new epoch (${p.haproxyEpoch()}, taken over at ${next.epoch})`,
    );
    assert.ok((p.haproxyEpoch() ?? 0) <= (await newest()), 'an epoch that was granted');

    p.process(`applier-${leader.holder}`).signal('SIGCONT');
    resumed = true;
    await sleep(3000); // the resumed process finishes whatever it was doing, under its old epoch
    assert.ok(
      (p.haproxyEpoch() ?? 0) >= tookOverAt && (p.haproxyEpoch() ?? 0) <= (await newest()),
      `HAProxy never went back to the old epoch (${p.haproxyEpoch()})`,
    );
    const term = await p.db
      .selectFrom('leader_epoch_history')
      .select('acquired_at')
      .where('group_name', '=', p.appliance('edge'))
      .where('epoch', '=', String(next.epoch))
      .executeTakeFirstOrThrow();
    assert.ok(new Date(term.acquired_at).getTime() > stoppedAt, 'the new term began while the old leader was stopped');
    const stale = await p.db
      .selectFrom('applies')
      .select(['id', 'status', 'epoch'])
      .where('appliance', '=', p.appliance('edge'))
      .where('epoch', '<', String(next.epoch))
      .where('finished_at', '>', term.acquired_at)
      .execute();
    assert.deepEqual(
      stale.map((r) => r.status),
      ['fenced'],
      'the resumed leader records its unfinished apply as fenced, never as applied',
    );
    for (const [host, want] of [
      ['c.example.com', pods.c],
      ['d.example.com', pods.d],
      ['b.example.com', pods.b],
    ] as const) {
      assert.ok(want.includes((await p.request(host, '/')).echo?.address ?? ''), `${host} still served`);
    }
    // HAProxy offers no compare-and-set: files the paused writer was half-way through writing may be stale on disk
    // (the fence stops its reload, so traffic never sees them); the current leader's drift check corrects them.
    await eventually(
      'HAProxy to equal the planner output again',
      async () => assert.deepEqual(await p.pendingOperations('edge'), []),
      { timeoutMs: 15_000, context },
    );
    for (const [host, want] of [
      ['c.example.com', pods.c],
      ['d.example.com', pods.d],
    ] as const) {
      assert.ok(want.includes((await p.request(host, '/')).echo?.address ?? ''), `${host} served after the correction`);
    }
    assert.equal((await p.leader('edge')).holder, follower, 'the new leader keeps the lease');
    const epochs = await p.db
      .selectFrom('leader_epoch_history')
      .select(['epoch', 'holder'])
      .where('group_name', '=', p.appliance('edge'))
      .orderBy('id')
      .execute();
    assert.deepEqual(
      epochs.map((e) => Number(e.epoch)),
      epochs.map((_, i) => i + 1),
      'every term has its own epoch, in order',
    );
  } finally {
    armed.close();
    if (!resumed) p.process(`applier-${leader.holder}`).signal('SIGCONT');
  }
});
