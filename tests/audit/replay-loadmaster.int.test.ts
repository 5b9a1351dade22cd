import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { PgApplyLog } from '@portolan/applier';
import { PgEpochStore } from '@portolan/leadership';
import type { DesiredState } from '@portolan/desired-state';
import { loadFleetConfig } from '@portolan/fleet-config';
import { testStack } from '@portolan/infra';
import { createLoadMasterDriver, type LoadMasterDriver } from '@portolan/loadmaster-driver';
import { startLoadMasterEmulator, type LoadMasterEmulator } from '@portolan/loadmaster-emulator';
import { PgPlannerStore } from '@portolan/planner';
import { splitSnapshot } from '@portolan/snapshot';
import { createTestDatabase, readValueTree, type TestDatabase } from '@portolan/store';
import { auditCommands, comparableState, type CommandIo, type ReplayReport } from '@portolan/audit';
import { desired, pool, route, vs } from '@portolan/audit/testing';

let tdb: TestDatabase;
let live: LoadMasterEmulator;
let target: LoadMasterEmulator;
let dir: string;
let configFile: string;
const appliance = `lm-${randomBytes(3).toString('hex')}`;
let epoch: number;

before(async () => {
  const stack = await testStack();
  tdb = await createTestDatabase(stack.postgresUrl);
  // Records are written under a leader's epoch, as the applier writes them.
  epoch = (await new PgEpochStore(tdb.db).grant(appliance, 'replica-1', 'run-1', () => 0)).epoch;
  live = await startLoadMasterEmulator({ port: 0, users: { bal: 'pw' }, https: true });
  target = await startLoadMasterEmulator({ port: 0, users: { bal: 'pw' }, https: true });
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'portolan-audit-lm-'));
  await fs.writeFile(path.join(dir, 'lm-password'), 'pw\n');
  await fs.writeFile(path.join(dir, 'fleet.key'), randomBytes(32).toString('hex'));
  configFile = path.join(dir, 'fleet.yaml');
  await fs.writeFile(
    configFile,
    `version: 1
clusters: [{ name: c1 }]
appliances:
  - name: ${appliance}
    driver: loadmaster
    loadmaster: { url: "${live.url}", username: bal, passwordFile: lm-password, insecureTls: true, defaultAddress: 10.0.0.99 }
bus: { url: "${stack.natsUrl}" }
store: { url: "${tdb.url}" }
leases: { redisUrl: "${stack.redisUrl}" }
secrets: { keyFile: fleet.key }
`,
  );
});
after(async () => {
  await live?.close();
  await target?.close();
  await tdb?.drop();
  if (dir !== undefined) await fs.rm(dir, { recursive: true, force: true });
});

const state = (members: readonly number[]): DesiredState => ({
  ...desired({
    driver: 'loadmaster',
    virtualServices: [
      vs('http-80', 80, [
        route('api.example.com', '/api', 'shop~api~80', 'api'),
        route('web.example.com', '/', 'shop~web~80', 'web'),
      ]),
    ],
    pools: [pool('shop~api~80', 'api', [9]), pool('shop~web~80', 'web', members)],
  }),
  appliance,
});

/** Pushes a desired state to the live emulator with the real driver and records snapshot and apply (with read-back). */
async function applyAndRecord(
  driver: LoadMasterDriver,
  d: DesiredState,
  parentId: string | null,
): Promise<{ snapshot: string; finishedAt: Date }> {
  const { root, pieces } = splitSnapshot(d);
  const snapshot = await new PgPlannerStore(tdb.db).appendOne({
    appliance,
    contentHash: root,
    rootHash: root,
    pieces,
    parentId,
    lastEventSeq: 0,
    fleetConfigHash: 'f',
    plannerVersion: 'test',
    held: false,
    holdReason: null,
    traceId: null,
  });
  const signal = AbortSignal.timeout(30_000);
  const operations = driver.diff(driver.render(d), await driver.readBack(signal));
  const context = { epoch: 1, signal, secrets: { resolve: () => Promise.reject(new Error('no certificates here')) } };
  const outcomes = [];
  for (const operation of operations)
    outcomes.push({ operation, result: await driver.execute(operation, context), durationMs: 1 });
  assert.deepEqual(
    outcomes.filter((o) => !o.result.ok),
    [],
  );
  const startedAt = new Date();
  const recorded = await new PgApplyLog(tdb.db).recordApply(
    {
      appliance,
      snapshotId: snapshot,
      epoch,
      leaderId: 'replica-1',
      trigger: 'snapshot',
      status: operations.length === 0 ? 'noop' : 'succeeded',
      operations,
      outcomes,
      observedAfter: await driver.readBack(signal),
      reason: null,
      startedAt,
      finishedAt: new Date(),
      traceId: null,
    },
    { group: appliance, epoch },
  );
  return { snapshot, finishedAt: recorded.finishedAt };
}

test('replay apply rebuilds a LoadMaster configuration of an earlier time on another LoadMaster emulator', async () => {
  const { config } = await loadFleetConfig(configFile);
  const driver = await createLoadMasterDriver(config.appliances[0]!);
  try {
    const first = await applyAndRecord(driver, state([1, 2]), null);
    const then = new Date(first.finishedAt.getTime() + 1);
    await new Promise((r) => setTimeout(r, 20));
    await applyAndRecord(driver, state([1, 2, 3, 4]), first.snapshot);

    let stdout = '';
    let stderr = '';
    const io: CommandIo = {
      stdout: { write: (t) => (stdout += t) },
      stderr: { write: (t) => (stderr += t) },
      stdinIsTty: false,
      stderrIsTty: false,
      ask: async () => '',
      now: () => new Date(),
      env: {},
      cwd: dir,
    };
    const code = await auditCommands['replay-apply'](
      ['--config', configFile, '--to', target.url, '--time', then.toISOString(), '--insecure', '-o', 'json'],
      io,
    );
    assert.equal(code, 0, stdout + stderr);
    const report = JSON.parse(stdout) as ReplayReport;
    assert.deepEqual(
      [report.mode, report.remaining, report.identical, report.snapshot],
      ['driver', 0, true, first.snapshot],
    );

    // Read the target back independently: it holds the two-member web pool of that time, not today's four.
    const recorded = await tdb.db
      .selectFrom('applies')
      .select('observed_after_hash')
      .where('snapshot_id', '=', first.snapshot)
      .executeTakeFirstOrThrow();
    const stored = await readValueTree(tdb.db, recorded.observed_after_hash!);
    const reader = await createLoadMasterDriver({
      ...config.appliances[0]!,
      loadmaster: { ...config.appliances[0]!.loadmaster!, url: target.url },
    });
    const readBack = await reader.readBack(AbortSignal.timeout(30_000));
    await reader.close();
    assert.equal(comparableState('loadmaster', readBack), comparableState('loadmaster', stored));
    const servers = JSON.stringify(readBack.virtualServices);
    assert.ok(servers.includes('10.0.0.2') && !servers.includes('10.0.0.3'));
  } finally {
    await driver.close();
  }
});
