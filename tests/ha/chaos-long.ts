// `npm run chaos`: the chaos suite's long form. Rounds of the workload, each with faults drawn at random (kinds,
// steps, the NATS node) from a seed, on one HA stack and one two-site pipeline, until the time is up. After every
// round the history checker runs on everything recorded so far; the stack is then repaired (`up`: killed nodes
// restart, the old Postgres primary rejoins as a standby) for the next round. Exit code 1 on the first violation.
//
//   node tests/ha/chaos-long.ts [--minutes 15] [--seed N] [--kinds site-partition,redis-master,...]
//
// Where network namespaces can be made, the stack and the pipeline run in three sites and site b is cut off by the
// network (`site-partition`); elsewhere it is paused as a whole (`site-pause`), and the run says which.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  createSiteNetwork,
  freeHaPorts,
  freePort,
  haStack,
  siteNetworkAvailable,
  type HaStack,
  type SiteNetwork,
} from '@portolan/infra';
import { openDatabase, type Database, type Kysely } from '@portolan/store';
import { eventually } from '../e2e/eventually.ts';
import { expectedView, readApplianceView, watchAppliance } from './appliance-view.ts';
import {
  initialManifests,
  runWorkload,
  type AckedChange,
  type FaultKind,
  type FaultPlan,
  type InjectedFault,
} from './chaos-workload.ts';
import { appliance, startHaPipeline, type HaPipeline } from './ha-pipeline.ts';
import { checkHistory, checkReplay, formatViolations, historySummary, recentHistory } from './history-checker.ts';

const { values } = parseArgs({
  options: { minutes: { type: 'string', default: '15' }, seed: { type: 'string' }, kinds: { type: 'string' } },
});
const namespaces = await siteNetworkAvailable();
/** Site b cut off by the network where namespaces can be made, else paused (SIGSTOP) as a whole. */
const siteFault: FaultKind = namespaces.ok ? 'site-partition' : 'site-pause';
const allKinds: FaultKind[] = [
  'nats-node',
  'nats-pause',
  'postgres-primary',
  'redis-master',
  'leader-applier',
  'planner',
  siteFault,
];
/** `--kinds a,b` limits the faults drawn (e.g. to repeat one kind); default all. */
const kinds = values.kinds === undefined ? allKinds : (values.kinds.split(',') as FaultKind[]);
const minutes = Number(values.minutes);
const seed = Number(values.seed ?? Date.now() % 100_000);
const log = (line: string): void => void process.stdout.write(`${line}\n`);

/** A small seeded generator (mulberry32): the same seed draws the same faults. */
function random(s: number): () => number {
  let a = s >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const steps = 40;
/** How many steps after its fault each kind is undone (engines that fail over are repaired between rounds). */
const recoverAfter: Partial<Record<FaultKind, number>> = {
  'nats-node': 6,
  'nats-pause': 4,
  'site-pause': 8,
  'site-partition': 8,
  'leader-applier': 4,
  planner: 4,
};

/** Three to five faults of distinct kinds at distinct steps, at least six steps apart. */
function roundPlan(next: () => number, firstStep: number): FaultPlan {
  const chosen = [...kinds].sort(() => next() - 0.5).slice(0, 3 + Math.floor(next() * 3));
  // Two NATS faults in one round would leave one node of three: no quorum, by design not survivable.
  const nats: FaultKind[] = ['nats-node', 'nats-pause', 'site-pause', 'site-partition'];
  const firstNats = chosen.find((k) => nats.includes(k));
  // Promoting the standby needs it reachable: it is in site b.
  const cut = chosen.includes('site-partition') && firstNats === 'site-partition';
  const usable = chosen.filter((k) => (!nats.includes(k) || k === firstNats) && !(cut && k === 'postgres-primary'));
  const faults = usable.map((kind, i) => {
    const step = firstStep + 3 + i * 7 + Math.floor(next() * 3);
    const after = recoverAfter[kind];
    return after === undefined ? { step, kind } : { step, kind, recoverAfter: after };
  });
  return {
    firstStep,
    steps,
    intervalMs: 500,
    extraAddedAt: firstStep + 5,
    extraRemovedAt: firstStep + steps - 6,
    faults,
    seed: Math.floor(next() * 1000),
  };
}

/** The round's figures: for each fault, the seconds until a change acknowledged after it showed. */
function recoveries(faults: readonly InjectedFault[], changes: readonly AckedChange[], seen: Map<number, number>) {
  return faults.map((f) => {
    const shown = changes.filter((c) => c.ackedAt > f.at && seen.has(c.step)).map((c) => seen.get(c.step)!);
    return { kind: f.kind, seconds: shown.length === 0 ? null : (Math.min(...shown) - f.at) / 1000 };
  });
}

/** One round: the workload with its faults, convergence, the checker; returns the round's figures. */
async function round(
  {
    stack,
    pipeline,
    db,
    network,
  }: { stack: HaStack; pipeline: HaPipeline; db: Kysely<Database>; network?: SiteNetwork },
  plan: FaultPlan,
  all: AckedChange[],
) {
  const leader = async (): Promise<string | null> =>
    (await db.selectFrom('leader_epochs').select('holder').where('group_name', '=', appliance).executeTakeFirst())
      ?.holder ?? null;
  const watcher = watchAppliance(pipeline.vtm);
  const ctx = { stack, pipeline, leader, log: (l: string) => log(`  ${l}`), ...(network ? { network } : {}) };
  const { changes, faults } = await runWorkload(ctx, plan);
  all.push(...changes);
  const expected = expectedView(all);
  await eventually(
    'every acknowledged change on the appliance',
    async () => {
      assert.deepEqual(await readApplianceView(pipeline.vtm), expected);
    },
    { timeoutMs: 120_000, context: pipeline.diagnostics },
  );
  await watcher.stop();
  const violations = await checkHistory(pipeline, db, appliance, expected);
  if (violations.length > 0)
    throw new assert.AssertionError({
      message: `${formatViolations(violations)}\n${await recentHistory(db, appliance)}\n${pipeline.diagnostics()}`,
    });
  return recoveries(faults, changes, watcher.seen);
}

/** Median and p99 (nearest rank) of each fault kind's figures. */
function summary(figures: readonly { kind: string; seconds: number | null }[]): string[] {
  const kinds = [...new Set(figures.map((f) => f.kind))].sort();
  return kinds.map((kind) => {
    const xs = figures
      .filter((f) => f.kind === kind && f.seconds !== null)
      .map((f) => f.seconds!)
      .sort((a, b) => a - b);
    const at = (q: number): string =>
      xs.length === 0 ? '-' : xs[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)]!.toFixed(2);
    return `${kind.padEnd(17)} n=${String(xs.length).padEnd(3)} median ${at(0.5)} s  p99 ${at(0.99)} s`;
  });
}

const stateDir = mkdtempSync(path.join(os.tmpdir(), 'portolan-chaos-'));
const network = namespaces.ok ? await createSiteNetwork(await freePort()) : undefined;
const stack = haStack({ config: { stateDir, ...(await freeHaPorts()) }, ...(network ? { sites: network } : {}) });
let code = 0;
try {
  log(`chaos (long): seed ${seed}, ${minutes} min`);
  log(
    network
      ? `site b is cut off by the network (namespaces ${Object.values(network.sites).map((s) => s.namespace)})`
      : `site b is paused with SIGSTOP: network namespaces cannot be made here (${namespaces.ok ? '' : namespaces.reason})`,
  );
  await stack.up();
  const pipeline = await startHaPipeline(stack, initialManifests());
  const db = openDatabase(stack.endpoints.postgresUrl, { max: 2 });
  const next = random(seed);
  const deadline = performance.now() + minutes * 60_000;
  const figures: { kind: string; seconds: number | null }[] = [];
  const all: AckedChange[] = [];
  try {
    await eventually(
      'the first configuration',
      async () => {
        assert.equal((await readApplianceView(pipeline.vtm)).pools.size, 4);
      },
      { timeoutMs: 90_000, context: pipeline.diagnostics },
    );
    for (let n = 1; performance.now() < deadline; n++) {
      const plan = roundPlan(next, 1 + (n - 1) * steps);
      log(`round ${n}: ${plan.faults.map((f) => `${f.kind}@${f.step}`).join(' ')}`);
      figures.push(...(await round({ stack, pipeline, db, ...(network ? { network } : {}) }, plan, all)));
      await stack.up();
      for (const name of pipeline.launched.components.keys()) await pipeline.restart(name);
      log(`  ${await historySummary(db, appliance)}`);
    }
    const replay = await checkReplay(pipeline.fleetConfig);
    if (replay.length > 0) throw new assert.AssertionError({ message: formatViolations(replay) });
    log(`passed: ${all.length} acknowledged changes, every one on the appliance; time to the next change applied:`);
    for (const line of summary(figures)) log(`  ${line}`);
  } catch (e) {
    // The processes' whole logs and the appliance's audit log, kept for the post-mortem (stop() removes the root).
    const kept = path.join(os.tmpdir(), `portolan-chaos-failed-${seed}-${Date.now()}`);
    cpSync(pipeline.launched.layout.root, kept, { recursive: true });
    log(`logs kept in ${kept}`);
    throw e;
  } finally {
    await db.destroy();
    await pipeline.stop();
  }
} catch (e) {
  log(`chaos (long) FAILED, seed ${seed}:\n${e instanceof Error ? e.message : String(e)}`);
  code = 1;
} finally {
  await network?.heal('b');
  await stack.down();
  await network?.close();
  // A failed run keeps the engines' data (Postgres, the NATS streams) for the post-mortem.
  if (code === 0) rmSync(stateDir, { recursive: true, force: true });
  else log(`engine data kept in ${stateDir}`);
}
process.exit(code);
