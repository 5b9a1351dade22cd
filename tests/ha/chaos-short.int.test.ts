// @serial: a fault loop that loads the whole machine; `npm test` runs it after the rest, alone.
// The chaos suite's short form: while endpoint churn and an Ingress added and removed flow through a real pipeline
// of two sites on the HA stack, one NATS node, the Postgres primary (then the standby promoted) and the Redis
// master are killed. The history checker then proves no acknowledged change was lost, no superseded epoch wrote,
// no two leaders wrote at once, and the snapshot chain is linear and replays to the same hashes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openDatabase } from '@portolan/store';
import { eventually } from '../e2e/eventually.ts';
import { expectedView, readApplianceView, watchAppliance } from './appliance-view.ts';
import {
  initialManifests,
  runWorkload,
  type AckedChange,
  type FaultPlan,
  type InjectedFault,
} from './chaos-workload.ts';
import { haStackFixture } from './ha-fixture.ts';
import { appliance, startHaPipeline } from './ha-pipeline.ts';
import { checkHistory, checkReplay, formatViolations, historySummary } from './history-checker.ts';

const fixture = haStackFixture();
const seed = Number(process.env.PORTOLAN_CHAOS_SEED ?? Date.now() % 1000);

/** Seconds from each fault to the first change acknowledged after it that showed on the appliance. */
function recoveries(faults: readonly InjectedFault[], changes: readonly AckedChange[], seen: Map<number, number>) {
  return faults.map((f) => {
    const shown = changes
      .filter((c) => c.ackedAt > f.at && seen.has(c.step))
      .map((c) => seen.get(c.step)!)
      .sort((a, b) => a - b)[0];
    return { ...f, seconds: shown === undefined ? null : (shown - f.at) / 1000 };
  });
}

test(`chaos (short, seed ${seed}): engine faults under churn lose no change and never let two leaders write`, async () => {
  const stack = fixture.stack;
  const pipeline = await startHaPipeline(stack, initialManifests());
  const db = openDatabase(stack.endpoints.postgresUrl, { max: 2 });
  const log = (line: string): void => void process.stdout.write(`# ${line}\n`);
  try {
    await eventually(
      'the first configuration on the appliance',
      async () => {
        assert.equal((await readApplianceView(pipeline.vtm)).pools.size, 4);
      },
      { timeoutMs: 60_000, context: pipeline.diagnostics },
    );
    const watcher = watchAppliance(pipeline.vtm);
    const plan: FaultPlan = {
      steps: 36,
      intervalMs: 500,
      extraAddedAt: 8,
      extraRemovedAt: 31,
      faults: [
        { step: 5, kind: 'nats-node', recoverAfter: 6 },
        { step: 14, kind: 'postgres-primary' },
        { step: 20, kind: 'leader-applier', recoverAfter: 4 },
        { step: 27, kind: 'redis-master' },
      ],
      seed,
    };
    const leader = async (): Promise<string | null> =>
      (await db.selectFrom('leader_epochs').select('holder').where('group_name', '=', appliance).executeTakeFirst())
        ?.holder ?? null;
    const { changes, faults } = await runWorkload({ stack, pipeline, leader, log }, plan);
    const expected = expectedView(changes);
    await eventually(
      'every acknowledged change on the appliance',
      async () => {
        assert.deepEqual(await readApplianceView(pipeline.vtm), expected);
      },
      { timeoutMs: 60_000, context: pipeline.diagnostics },
    );
    await watcher.stop();
    for (const r of recoveries(faults, changes, watcher.seen))
      log(
        `${r.kind} (${r.node}): next change applied ${r.seconds === null ? '(none seen)' : `${r.seconds.toFixed(2)} s`} after the fault`,
      );

    log(`history: ${await historySummary(db, appliance)}`);
    const violations = [
      ...(await checkHistory(pipeline, db, appliance, expected)),
      ...(await checkReplay(pipeline.fleetConfig)),
    ];
    assert.equal(violations.length, 0, `the history breaks a rule:\n${formatViolations(violations)}`);
  } finally {
    await db.destroy();
    await pipeline.stop();
  }
});
