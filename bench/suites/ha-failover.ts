import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  createSiteNetwork,
  freeHaPorts,
  freePort,
  haStack,
  siteNetworkAvailable,
  type HaStack,
  type SiteNetwork,
} from '@portolan/infra';
import { openDatabase } from '@portolan/store';
import { eventually } from '../../tests/e2e/eventually.ts';
import { expectedView, readApplianceView, watchAppliance } from '../../tests/ha/appliance-view.ts';
import { initialManifests, runWorkload, type AckedChange, type FaultKind } from '../../tests/ha/chaos-workload.ts';
import { appliance, startHaPipeline, type HaPipeline } from '../../tests/ha/ha-pipeline.ts';
import { checkHistory, formatViolations } from '../../tests/ha/history-checker.ts';
import { PartialResultError, summarize, type Benchmark, type Figure } from '../figure.ts';

/** The faults measured, each with its goal (seconds from the fault to the next change applied). */
const faults: readonly { kind: FaultKind; what: string; goal: string }[] = [
  { kind: 'nats-node', what: 'a NATS node killed (each node in turn)', goal: '≤ 2' },
  { kind: 'redis-master', what: 'the Redis master killed (Sentinel failover)', goal: '≤ 6' },
  { kind: 'postgres-primary', what: 'the Postgres primary killed, standby promoted 0.5 s later', goal: '≤ 10' },
  { kind: 'site-pause', what: 'site b stopped at once (SIGSTOP of its Portolan processes and nats-2)', goal: '≤ 10' },
  { kind: 'site-partition', what: 'site b cut off by the network (namespaces)', goal: '≤ 10' },
];
/**
 * One round's injections, in order. The Redis master and the Postgres primary are killed twice, so each is back in
 * site a when site b is cut off (a partition of the site holding them stops every writer until it heals: the local
 * stack has no witness to promote across it). Without namespaces, the partition is left out.
 */
const roundKinds = (partition: boolean): FaultKind[] => [
  'nats-node',
  'redis-master',
  'postgres-primary',
  'site-pause',
  'redis-master',
  'postgres-primary',
  ...(partition ? (['site-partition'] as const) : []),
];
/** Steps of one injection: the fault comes before the third change; what a restart undoes comes back at the tenth. */
const steps = 12;

/**
 * Failover on the HA stack with the two-site pipeline (tests/ha), placed in three sites where network namespaces
 * can be made: for each fault in turn, a short run of endpoint changes (one every 250 ms) with the fault injected
 * before its third change, then the stack repaired (`up`: killed nodes restart, the old Postgres primary rejoins as
 * a standby) before the next. The figure is the time from the fault to the first change made after it showing on
 * the vTM appliance. After all of them, the history checker must find every acknowledged change on the appliance
 * and no rule broken.
 */
export const haFailoverBench: Benchmark = {
  name: 'ha-failover',
  async run({ quick, log }) {
    const rounds = quick ? 2 : 20;
    const stateDir = mkdtempSync(path.join(os.tmpdir(), 'portolan-bench-ha-'));
    const namespaces = await siteNetworkAvailable();
    if (!namespaces.ok) log(`no site partition: network namespaces cannot be made here (${namespaces.reason})`);
    const network = namespaces.ok ? await createSiteNetwork(await freePort()) : undefined;
    const stack = haStack({ config: { stateDir, ...(await freeHaPorts()) }, ...(network ? { sites: network } : {}) });
    const samples = new Map<FaultKind, number[]>(faults.map((f) => [f.kind, []]));
    const figures = (): Figure[] =>
      faults
        .filter((f) => samples.get(f.kind)!.length > 0)
        .map((f) => {
          const s = summarize(samples.get(f.kind)!);
          const n = samples.get(f.kind)!.length;
          return {
            name: `${f.what} → next change applied, ${n}×`,
            unit: 's',
            value: s.median,
            p99: s.p99,
            goal: f.goal,
          };
        });
    try {
      await stack.up();
      const pipeline = await startHaPipeline(stack, initialManifests());
      try {
        await measure({ stack, pipeline, ...(network ? { network } : {}) }, rounds, samples, log);
      } catch (e) {
        // The processes' whole logs, kept for the post-mortem (stop() removes them), as the chaos suite keeps its own.
        const kept = path.join(os.tmpdir(), `portolan-bench-ha-failed-${Date.now()}`);
        cpSync(pipeline.launched.layout.root, kept, { recursive: true });
        log(`logs kept in ${kept}`);
        throw e;
      } finally {
        await pipeline.stop();
      }
      return figures();
    } catch (e) {
      throw new PartialResultError((e as Error).message, figures(), { cause: e });
    } finally {
      await network?.heal('b');
      await stack.down();
      await network?.close();
      rmSync(stateDir, { recursive: true, force: true });
    }
  },
};

/** Runs the injections, checks the whole history, and fills `samples`. */
async function measure(
  on: { stack: HaStack; pipeline: HaPipeline; network?: SiteNetwork },
  rounds: number,
  samples: Map<FaultKind, number[]>,
  log: (line: string) => void,
): Promise<void> {
  const { stack, pipeline, network } = on;
  const db = openDatabase(stack.endpoints.postgresUrl, { max: 2 });
  const leader = async (): Promise<string | null> =>
    (await db.selectFrom('leader_epochs').select('holder').where('group_name', '=', appliance).executeTakeFirst())
      ?.holder ?? null;
  const all: AckedChange[] = [];
  try {
    await converged(pipeline, all, 90_000);
    let step = 1;
    for (let round = 0; round < rounds; round++)
      for (const kind of roundKinds(network !== undefined)) {
        const watcher = watchAppliance(pipeline.vtm);
        const plan = { firstStep: step, steps, intervalMs: 250, extraAddedAt: -1, extraRemovedAt: -1, seed: round };
        const faultPlan = { ...plan, faults: [{ step: step + 2, kind, recoverAfter: 7 }] };
        const ctx = { stack, pipeline, leader, log: () => {}, ...(network ? { network } : {}) };
        const { changes, faults: injected } = await runWorkload(ctx, faultPlan);
        all.push(...changes);
        await converged(pipeline, all, 120_000);
        await watcher.stop();
        const fault = injected[0]!;
        const shown = changes.filter((c) => c.ackedAt > fault.at && watcher.seen.has(c.step));
        assert.ok(shown.length > 0, `no change made after the ${kind} fault was seen on the appliance`);
        const first = Math.min(...shown.map((c) => watcher.seen.get(c.step)!));
        samples.get(kind)!.push((first - fault.at) / 1000);
        log(`${kind} on ${fault.node}: ${((first - fault.at) / 1000).toFixed(2)} s`);
        await stack.up();
        for (const name of pipeline.launched.components.keys()) await pipeline.restart(name);
        step += steps;
      }
    const violations = await checkHistory(pipeline, db, appliance, expectedView(all));
    assert.equal(violations.length, 0, `the history breaks a rule:\n${formatViolations(violations)}`);
    log(`${all.length} acknowledged changes, every one on the appliance; no rule of the history broken`);
  } finally {
    await db.destroy();
  }
}

/** Waits until the appliance holds every acknowledged change. */
async function converged(pipeline: HaPipeline, all: readonly AckedChange[], timeoutMs: number): Promise<void> {
  const expected = expectedView(all);
  await eventually(
    'every acknowledged change on the appliance',
    async () => {
      const view = await readApplianceView(pipeline.vtm);
      if (all.length === 0) assert.equal(view.pools.size, 4);
      else assert.deepEqual(view, expected);
    },
    { timeoutMs, context: pipeline.diagnostics },
  );
}
