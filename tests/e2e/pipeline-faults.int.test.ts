// @serial: a fault loop that loads the whole machine; `npm test` runs it after the rest, alone.
// Issue "No change lost, ever", end to end: one long-lived pipeline of real processes (simulator, watcher, planner,
// two HAProxy appliers, HAProxy) on a Postgres and a NATS that belong to this test alone (stopping the shared test
// stack's would break the tests beside this one). While EndpointSlice changes flow through kubectl, Postgres is
// stopped (`pg_ctl stop -m fast|immediate`) 50+ times, nats-server and the planner are SIGKILLed 10+ times each, at
// random moments; then a history checker holds the pipeline to its invariant: every acknowledged change reaches
// HAProxy, in order, and `portolan replay --verify` rebuilds every snapshot. SEED=<n> repeats a run's draws (the
// interleaving with the processes' timing still varies).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomInt } from 'node:crypto';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { PgSnapshotSource } from '@portolan/applier';
import { startPrivatePostgres, type PrivatePostgres } from '@portolan/planner/testing/private-postgres';
import { startPipeline, type Pipeline } from './pipeline-harness.ts';
import { endpointSlice, ingress, ingressClass, namespace, service } from './manifests.ts';
import { eventually } from './eventually.ts';
import { seededRandom, startPrivateNats, type PrivateNats } from './private-nats.ts';
import { checkHistory, key, membersByService, type Change } from './fault-history.ts';
import { isAlive } from '@portolan/infra';

const SEED = process.env.SEED === undefined ? randomInt(2 ** 31) : Number(process.env.SEED);
process.stdout.write(`pipeline fault loop: SEED=${SEED}\n`);
const exec = promisify(execFile);
const cli = path.resolve(import.meta.dirname, '..', '..', 'packages', 'cli', 'bin', 'portolan.js');

/** Fault minimums of the issue. */
const MIN = { postgresStops: 50, natsKills: 10, plannerKills: 10 };
const ns = 'faults';
const services = ['s0', 's1', 's2', 's3'] as const;
/** The "pods": each change gives a Service a new random non-empty subset of these. */
const pool = ['127.0.41.1', '127.0.41.2', '127.0.41.3', '127.0.41.4', '127.0.41.5'];
/** The pipeline processes that must stay up (a crash other than the planner kills is restarted and reported). */
const supervised = ['watcher', 'planner', 'applier-edge-a', 'applier-edge-b'];

const random = seededRandom(SEED);
const between = (lo: number, hi: number): number => lo + random() * (hi - lo);

let pg: PrivatePostgres | undefined;
let nats: PrivateNats | undefined;
let p: Pipeline | undefined;
const changes: Change[] = [];
const byService = new Map<string, Change[]>(services.map((s) => [s, []]));

const context = (): string => p?.diagnostics() ?? '';

async function change(svc: string, members: readonly string[]): Promise<Change> {
  const c: Change = { index: changes.length, service: svc, members: [...members].sort(), state: 'pending' };
  changes.push(c);
  byService.get(svc)!.push(c);
  try {
    await p!.apply(endpointSlice(ns, svc, c.members, p!.echoPort));
    c.state = 'acked';
  } catch {
    c.state = 'failed';
  }
  return c;
}

/** A random non-empty subset of the pool that differs from the Service's last change. */
function nextMembers(svc: string): string[] {
  const last = byService.get(svc)!.at(-1);
  for (;;) {
    const picked = pool.filter(() => random() < 0.5);
    if (picked.length > 0 && (last === undefined || key(picked) !== key(last.members))) return picked;
  }
}

before(async () => {
  [pg, nats] = await Promise.all([startPrivatePostgres(), startPrivateNats()]);
  p = await startPipeline({
    appliances: [
      {
        name: 'edge',
        driver: 'haproxy',
        ingressControllers: ['portolan.dev/ingress-controller'],
        replicas: ['edge-a', 'edge-b'],
      },
    ],
    echoAddresses: pool,
    postgresUrl: pg.url,
    natsUrl: nats.url,
  });
  await p.apply(
    [
      namespace(ns),
      ingressClass('portolan', 'portolan.dev/ingress-controller'),
      ...services.map((s) => service(ns, s, p!.echoPort)),
      ...services.map((s) =>
        ingress(ns, s, {
          className: 'portolan',
          rules: [{ host: `${s}.faults.example`, paths: [{ path: '/', type: 'Prefix', service: s }] }],
        }),
      ),
    ].join(''),
  );
  for (const s of services) {
    const c = await change(s, nextMembers(s));
    assert.equal(c.state, 'acked', `the first EndpointSlice of ${s} is applied`);
  }
});

after(async () => {
  await p?.stop();
  await Promise.allSettled([nats?.destroy(), pg?.destroy()]);
});

/** The members each Service's pool has in one snapshot (absent: no pool for the Service). */
test(
  'faults: 50+ Postgres stops, 10+ nats-server and planner SIGKILLs while endpoints change; every acknowledged change reaches HAProxy in order',
  { timeout: 280_000 },
  async () => {
    const pipeline = p!;
    const postgres = pg!;
    const bus = nats!;
    const started = performance.now();
    const edge = pipeline.appliance('edge');

    // The baseline: every Service's first change applied; the history is checked from this head on.
    await eventually(
      'the first endpoints to reach HAProxy',
      async () => {
        const source = new PgSnapshotSource(pipeline.db);
        const head = await source.head(edge, { fresh: true });
        assert.ok(head !== null, 'no snapshot yet');
        const members = membersByService((await source.get(head.id)).desired, ns);
        for (const s of services)
          assert.equal(members.get(s), key(byService.get(s)![0]!.members), `${s} in snapshot ${head.id}`);
      },
      { timeoutMs: 60_000, context },
    );
    await pipeline.settled('edge', 60_000);
    const baseline = (
      await pipeline.db
        .selectFrom('snapshot_heads')
        .select('snapshot_id')
        .where('appliance', '=', edge)
        .executeTakeFirstOrThrow()
    ).snapshot_id;

    const counts = {
      postgresStops: 0,
      fast: 0,
      immediate: 0,
      natsKills: 0,
      plannerKills: 0,
      restarts: {} as Record<string, number>,
      unexpectedExits: {} as Record<string, number>,
      failedApplies: 0,
    };
    const ms = { pgStop: 0, pgDown: 0, pgStart: 0, natsDown: 0 };
    const errors: unknown[] = [];
    let faulting = true;
    const expectedDeath = new Set<string>();
    const restarting = new Set<string>();
    const exitLogs: string[] = [];
    const enough = (): boolean =>
      counts.postgresStops >= MIN.postgresStops &&
      counts.natsKills >= MIN.natsKills &&
      counts.plannerKills >= MIN.plannerKills;
    const timed = async (what: keyof typeof ms, step: () => Promise<void>): Promise<void> => {
      const t = performance.now();
      await step();
      ms[what] += performance.now() - t;
    };

    /** Restarts any supervised process that is gone (the planner after a kill; anything else is an unexpected exit). */
    const supervise = new AbortController();
    const supervisor = (async () => {
      while (!supervise.signal.aborted) {
        for (const name of supervised) {
          const proc = pipeline.process(name);
          if (restarting.has(name) || proc.pid() !== null) continue;
          restarting.add(name);
          if (!expectedDeath.delete(name)) {
            counts.unexpectedExits[name] = (counts.unexpectedExits[name] ?? 0) + 1;
            exitLogs.push(
              `--- ${name} exited on its own; its last log lines:\n${proc.log().trimEnd().split('\n').slice(-4).join('\n')}`,
            );
          }
          void (async () => {
            // A start fails while Postgres or NATS is down (the process exits during start): retry, like systemd would.
            for (let attempt = 1; !supervise.signal.aborted && proc.pid() === null; attempt++) {
              try {
                counts.restarts[name] = (counts.restarts[name] ?? 0) + 1;
                await proc.start();
              } catch (e) {
                if (attempt > 300) errors.push(e);
                await sleep(200);
              }
            }
          })().finally(() => restarting.delete(name));
        }
        await sleep(100);
      }
    })();

    const postgresFaults = (async () => {
      while (faulting) {
        // Up for 0.3-1.5 s: long enough for a planner to start now and then (pg_ctl itself takes ~0.5-1 s per cycle).
        await sleep(between(300, 1500));
        const mode = random() < 0.5 ? 'fast' : 'immediate';
        await timed('pgStop', () => postgres.stop(mode));
        counts.postgresStops++;
        counts[mode]++;
        // Down for 0.2-2 s, shorter ones more often (the loop needs 50 of them within the time budget).
        await timed('pgDown', () => sleep(200 + 1800 * random() ** 3));
        await timed('pgStart', () => postgres.start());
      }
    })();
    const natsFaults = (async () => {
      while (faulting) {
        await sleep(between(4000, 10_000));
        if (!faulting) break;
        await bus.kill();
        counts.natsKills++;
        await timed('natsDown', async () => {
          await sleep(between(0, 1000));
          await bus.start();
        });
      }
    })();
    const plannerFaults = (async () => {
      const planner = pipeline.process('planner');
      while (faulting) {
        // A random moment of the planner's life: folding, committing, or starting again after the last kill.
        await sleep(between(3000, 8000));
        const victim = planner.pid();
        if (!faulting || victim === null) continue;
        expectedDeath.add('planner');
        planner.signal('SIGKILL');
        counts.plannerKills++;
        // Wait for that process to be gone: the pid file may already name its successor (the supervisor restarts it).
        for (let i = 0; i < 250 && isAlive(victim); i++) await sleep(20);
        if (isAlive(victim)) throw new Error(`planner ${victim} survived SIGKILL`);
        // The supervisor restarts it (a kill during a restart is retried by the restart itself).
        if (restarting.has('planner')) expectedDeath.delete('planner');
      }
    })();
    const traffic = services.map(async (s) => {
      while (faulting) {
        const c = await change(s, nextMembers(s));
        if (c.state === 'failed') counts.failedApplies++;
        await sleep(between(100, 700));
      }
    });
    const summary = (): string =>
      `${counts.postgresStops} Postgres stops (${counts.fast} fast, ${counts.immediate} immediate), ${counts.natsKills} nats-server kills, ${counts.plannerKills} planner kills, starts ${JSON.stringify(counts.restarts)}, unexpected exits ${JSON.stringify(counts.unexpectedExits)}, ${changes.length} changes (${changes.filter((c) => c.state === 'acked').length} acknowledged, ${counts.failedApplies} kubectl failures); ms ${JSON.stringify(Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, Math.round(v)])))}`;

    let faultSeconds = '?';
    try {
      try {
        await eventually('the fault minimums', () => assert.ok(enough(), summary()), {
          timeoutMs: 200_000,
          everyMs: 250,
        });
      } finally {
        faulting = false;
        for (const r of await Promise.allSettled([postgresFaults, natsFaults, plannerFaults, ...traffic]))
          if (r.status === 'rejected') errors.push(r.reason);
        await postgres.start();
        await bus.start();
        faultSeconds = ((performance.now() - started) / 1000).toFixed(1);
      }
      // A Service whose last kubectl call failed gets one more change, acknowledged, so each ends on a known state.
      for (const s of services) {
        while (byService.get(s)!.at(-1)!.state !== 'acked') await change(s, nextMembers(s));
      }
      const lastAcked = new Map(services.map((s) => [s, byService.get(s)!.at(-1)!]));
      await eventually(
        'every supervised process to run',
        () =>
          assert.deepEqual(
            supervised.filter((n) => pipeline.process(n).pid() === null),
            [],
          ),
        { timeoutMs: 60_000, context },
      );

      // Settled: the head snapshot holds each Service's last acknowledged endpoints, and HAProxy (read back through its
      // Runtime API by the driver) has nothing pending against that head.
      await eventually(
        'the head snapshot to hold every last acknowledged change',
        async () => {
          const source = new PgSnapshotSource(pipeline.db);
          const head = await source.head(edge, { fresh: true });
          const members = membersByService((await source.get(head!.id)).desired, ns);
          for (const s of services)
            assert.equal(
              members.get(s),
              key(lastAcked.get(s)!.members),
              `${s}: head snapshot ${head!.id} vs change #${lastAcked.get(s)!.index}`,
            );
        },
        { timeoutMs: 90_000, context },
      );
      await pipeline.settled('edge', 60_000);
      supervise.abort();
      await supervisor;
      await checkHistory(pipeline, String(baseline), lastAcked, { namespace: ns, services, byService, seed: SEED });

      const replay = await exec(process.execPath, [cli, 'replay', '--verify', '--config', pipeline.fleetConfig], {
        timeout: 120_000,
      }).catch((e: { stdout?: string; stderr?: string; code?: number }) => ({
        stdout: e.stdout ?? '',
        stderr: `${e.stderr ?? ''} (exit ${String(e.code)})`,
      }));
      process.stdout.write(`replay: ${replay.stdout.trim()}\n`);
      assert.match(
        replay.stdout,
        /verified [1-9]\d* snapshots; 0 differ/,
        `replay --verify (SEED=${SEED}): ${replay.stderr}`,
      );
      assert.deepEqual(errors, [], `no unexpected error (SEED=${SEED})`);
    } finally {
      supervise.abort();
      await supervisor;
      process.stdout.write(
        `pipeline fault loop SEED=${SEED}: ${summary()}; faults ${faultSeconds} s, total ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
      );
      for (const l of exitLogs) process.stdout.write(`${l}\n`);
    }
  },
);
