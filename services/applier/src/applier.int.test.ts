import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { testStack } from '@portolan/infra';
import { fleetKeyFromBytes } from '@portolan/secret-envelope';
import { createTestDatabase, type TestDatabase } from '@portolan/store';
import { canonicalizeDesiredState } from '@portolan/snapshot';
import { PgApplyLog } from './adapters/pg-apply-log.ts';
import {
  applies as appliesOf,
  harness as startHarness,
  unique,
  type Harness,
  type HarnessOptions,
} from './testing/applier-harness.ts';
import { FakeAppliance, renderFake } from './testing/fake-appliance.ts';
import { writeSnapshot } from './testing/snapshot-writer.ts';
import { desiredState, pool } from './testing/desired-fixtures.ts';

let database: TestDatabase;
let redisUrl: string;
const fleetKey = fleetKeyFromBytes(randomBytes(32), 'k1');
before(async () => {
  const stack = await testStack();
  redisUrl = stack.redisUrl;
  database = await createTestDatabase(stack.postgresUrl);
});
after(async () => {
  await database.drop();
});

const harness = (options: HarnessOptions = {}): Promise<Harness> =>
  startHarness({ database, redisUrl, fleetKey }, options);
const applies = (appliance: string): ReturnType<typeof appliesOf> => appliesOf(database, appliance);

test('a snapshot equal to what the appliance holds makes zero writes, also after a restart', async () => {
  const appliance = `a${unique()}`;
  const desired = desiredState(appliance, [pool('web', [1, 2]), pool('api', [3])]);
  const fake = new FakeAppliance();
  for (const [k, v] of Object.entries(renderFake(canonicalizeDesiredState(desired)))) fake.tamper(k, v);
  const id = await writeSnapshot(database.db, desired);
  const h = await harness({ appliance, fake });
  try {
    const r = await h.applier.reconcile('start');
    assert.deepEqual(r.kind === 'applied' && [r.status, r.operations], ['noop', 0]);
    assert.equal(fake.writes.length, 0);
    assert.deepEqual(
      (await applies(appliance)).map((a) => [a.status, a.snapshot_id]),
      [['noop', id]],
    );
  } finally {
    await h.close();
  }
  const restarted = await harness({ appliance, fake, replica: 'r2' });
  try {
    const r = await restarted.applier.reconcile('start');
    assert.equal(r.kind, 'in-sync');
    assert.equal(fake.writes.length, 0, 'a restarted applier must not write an appliance that is already equal');
    assert.equal((await applies(appliance)).length, 1, 'nothing new to record');
  } finally {
    await restarted.close();
  }
});

test('only the difference is applied, each write carries the epoch, and the apply log records it', async () => {
  const h = await harness();
  try {
    await writeSnapshot(database.db, desiredState(h.appliance, [pool('web', [1, 2]), pool('api', [3])]));
    const first = await h.applier.reconcile('snapshot');
    assert.deepEqual(first.kind === 'applied' && [first.status, first.operations], ['succeeded', 3]);
    const before = h.fake.writes.length;
    const s2 = await writeSnapshot(database.db, desiredState(h.appliance, [pool('web', [1, 2, 4]), pool('api', [3])]));
    const second = await h.applier.reconcile('snapshot');
    assert.deepEqual(second.kind === 'applied' && [second.status, second.operations], ['succeeded', 1]);
    assert.deepEqual(
      h.fake.writes.slice(before).map((w) => [w.key, w.action, w.epoch]),
      [['pool/web', 'update', h.leadership.epoch]],
    );
    const log = await applies(h.appliance);
    assert.deepEqual(
      log.map((a) => [a.status, a.epoch]),
      [
        ['succeeded', h.leadership.epoch],
        ['succeeded', h.leadership.epoch],
      ],
    );
    assert.equal(log[1]!.snapshot_id, s2);
    assert.deepEqual(
      (log[1]!.results as { objectName: string; result: { ok: boolean } }[]).map((x) => [x.objectName, x.result.ok]),
      [['web', true]],
    );
    assert.deepEqual([...h.fake.objects.keys()].sort(), ['pool/api', 'pool/web', 'virtual_service/http-80']);
    // The row lists each operation without its payload; the operations as sent, payloads included, are a value tree.
    assert.deepEqual(log[1]!.operations, [
      { objectType: 'pool', objectName: 'web', action: 'update', summary: 'update pool/web' },
    ]);
    const sent = await new PgApplyLog(database.db).operationsOf(log[1]!.id);
    const rendered = renderFake(
      canonicalizeDesiredState(desiredState(h.appliance, [pool('web', [1, 2, 4]), pool('api', [3])])),
    );
    assert.deepEqual(sent, [
      {
        objectType: 'pool',
        objectName: 'web',
        action: 'update',
        payload: rendered['pool/web'],
        summary: 'update pool/web',
      },
    ]);
  } finally {
    await h.close();
  }
});

test('an apply recorded before operation trees existed reads its operations from its row; a missing tree is an error naming the apply', async () => {
  const appliance = `a${unique()}`;
  const snapshotId = await writeSnapshot(database.db, desiredState(appliance, [pool('web', [1])]));
  const operations = [
    {
      objectType: 'pool',
      objectName: 'web',
      action: 'update',
      payload: { members: ['10.0.0.1:80'] },
      summary: 'update pool/web',
    },
  ];
  const row = await database.db
    .insertInto('applies')
    .values({
      appliance,
      snapshot_id: snapshotId,
      epoch: 1,
      leader_id: 'r1',
      trigger: 'snapshot',
      status: 'succeeded',
      operations: JSON.stringify(operations),
      operations_hash: null,
      results: '[]',
      observed_after_hash: null,
      reason: null,
      started_at: new Date(),
      finished_at: new Date(),
      trace_id: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  assert.deepEqual(await new PgApplyLog(database.db).operationsOf(String(row.id)), operations);
  assert.equal(await new PgApplyLog(database.db).operationsOf('999999999'), null);
  const lost = await database.db
    .insertInto('applies')
    .values({
      appliance,
      snapshot_id: snapshotId,
      epoch: 1,
      leader_id: 'r1',
      trigger: 'snapshot',
      status: 'succeeded',
      operations: '[]',
      operations_hash: 'no-such-piece',
      results: '[]',
      observed_after_hash: null,
      reason: null,
      started_at: new Date(),
      finished_at: new Date(),
      trace_id: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await assert.rejects(
    new PgApplyLog(database.db).operationsOf(String(lost.id)),
    new RegExp(`apply ${String(lost.id)}: its operations \\(value tree no-such-piece\\) are missing`),
  );
});

test('a failing operation does not stop the others, is retried with backoff, and converges', async () => {
  const h = await harness();
  try {
    const desired = desiredState(h.appliance, [pool('a', [1]), pool('b', [2]), pool('c', [3])]);
    await writeSnapshot(database.db, desired);
    h.fake.failNext('pool/b', 2);
    const first = await h.applier.reconcile('snapshot');
    assert.ok(first.kind === 'applied');
    assert.equal(first.status, 'partial');
    assert.equal(first.failed, 1);
    assert.ok(first.retryInMs !== null && first.retryInMs <= 200);
    assert.ok(
      h.fake.objects.has('pool/a') && h.fake.objects.has('pool/c') && h.fake.objects.has('virtual_service/http-80'),
      'the others were applied',
    );
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && (await applies(h.appliance)).at(-1)?.status !== 'succeeded') await sleep(25);
    const statuses = (await applies(h.appliance)).map((a) => a.status);
    assert.deepEqual(
      statuses,
      ['partial', 'failed', 'succeeded'],
      'retried twice: pool/b fails once more, then converges',
    );
    const observed = await h.driver.readBack(new AbortController().signal);
    assert.deepEqual(
      h.driver.diff(renderFake(canonicalizeDesiredState(desired)), observed),
      [],
      'the appliance now equals the snapshot',
    );
    const again = await h.applier.reconcile('snapshot');
    assert.equal(again.kind, 'in-sync', 'applying the same snapshot twice makes zero changes the second time');
  } finally {
    await h.close();
  }
});

test('a held snapshot is not applied: the hold is recorded once and the appliance keeps the last applied state', async () => {
  const h = await harness();
  try {
    const s1 = await writeSnapshot(database.db, desiredState(h.appliance, [pool('web', [1, 2, 3])]));
    await h.applier.reconcile('snapshot');
    const writes = h.fake.writes.length;
    const held = await writeSnapshot(database.db, desiredState(h.appliance, [pool('web', [1])]), {
      held: true,
      holdReason: 'would remove 67 % of members',
    });
    const r = await h.applier.reconcile('snapshot');
    assert.deepEqual(r.kind === 'in-sync' && r.snapshotId, s1);
    await h.applier.reconcile('poll');
    assert.equal(h.fake.writes.length, writes, 'no write for a held snapshot');
    const log = await applies(h.appliance);
    assert.deepEqual(
      log.filter((a) => a.status === 'held').map((a) => a.snapshot_id),
      [held],
    );
  } finally {
    await h.close();
  }
});

test('a snapshot that removes most members, or empties a pool, is applied at once: the applier vetoes nothing', async () => {
  const h = await harness();
  try {
    await writeSnapshot(database.db, desiredState(h.appliance, [pool('web', [1, 2, 3, 4]), pool('api', [5])]));
    await h.applier.reconcile('snapshot');
    // Removes 4 of 5 members and empties a pool: Kubernetes asked for it (the planner holds only what no delete explains).
    const s2 = await writeSnapshot(database.db, desiredState(h.appliance, [pool('web', [1]), pool('api', [])]));
    const r = await h.applier.reconcile('snapshot');
    assert.deepEqual(r.kind === 'applied' && [r.snapshotId, r.status], [s2, 'succeeded']);
    assert.deepEqual(
      (await applies(h.appliance)).filter((a) => a.status === 'held'),
      [],
      'nothing recorded as held',
    );
  } finally {
    await h.close();
  }
});

test('after a fully successful apply, the next snapshot is diffed against what it left: no full read-back per change', async () => {
  const h = await harness();
  try {
    await writeSnapshot(database.db, desiredState(h.appliance, [pool('web', [1, 2])]));
    await h.applier.reconcile('start');
    let reads = 0;
    const readBack = h.driver.readBack.bind(h.driver);
    h.driver.readBack = async (signal) => {
      reads++;
      return readBack(signal);
    };
    for (let n = 3; n <= 6; n++) {
      await writeSnapshot(
        database.db,
        desiredState(h.appliance, [
          pool(
            'web',
            Array.from({ length: n }, (_, i) => i + 1),
          ),
        ]),
      );
      const r = await h.applier.reconcile('snapshot');
      assert.deepEqual(r.kind === 'applied' && [r.status, r.operations], ['succeeded', 1]);
    }
    // A head poll that raced the notification (it saw the new head before the notification's cycle ran) finds the
    // head already applied: it reads nothing back either.
    const polled = await h.applier.reconcile('poll');
    assert.equal(polled.kind, 'in-sync');
    assert.equal(reads, 0, 'four one-member changes and a late poll, zero full read-backs');
    assert.deepEqual(
      h.driver.diff(
        renderFake(canonicalizeDesiredState(desiredState(h.appliance, [pool('web', [1, 2, 3, 4, 5, 6])]))),
        await readBack(new AbortController().signal),
      ),
      [],
      'the appliance equals the last snapshot',
    );
  } finally {
    await h.close();
  }
});
