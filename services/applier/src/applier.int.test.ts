import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { testStack } from '@portolan/infra';
import { LeaderElector, PgEpochStore, RedisLeaseClient, leaseTimings, type Leadership } from '@portolan/leadership';
import { create, KubeEventSchema, KubeEventType, KubeKind, toBinary } from '@portolan/proto';
import { fleetKeyFromBytes, sealSecretData } from '@portolan/secret-envelope';
import { createTestDatabase, sql, type TestDatabase } from '@portolan/store';
import { canonicalizeDesiredState } from '@portolan/snapshot';
import type { DriftPolicy } from './core/drift-report.ts';
import { Applier } from './applier.ts';
import { ArchivedSecretResolver } from './adapters/archived-secret-resolver.ts';
import { PgApplyLog } from './adapters/pg-apply-log.ts';
import { PgSnapshotSource } from './adapters/pg-snapshot-source.ts';
import { FakeAppliance, FakeApplianceDriver, renderFake } from './testing/fake-appliance.ts';
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

const unique = (): string => randomBytes(4).toString('hex');
const timings = (() => {
  const t = leaseTimings({ ttlMs: 2000, renewEveryMs: 400, retryEveryMs: 100 });
  assert.ok(t.ok);
  return t.timings;
})();

interface Harness {
  readonly appliance: string;
  readonly fake: FakeAppliance;
  readonly driver: FakeApplianceDriver;
  readonly applier: Applier;
  readonly leadership: Leadership;
  readonly close: () => Promise<void>;
}

async function harness(
  options: {
    policy?: DriftPolicy;
    fenceByEpoch?: boolean;
    fake?: FakeAppliance;
    appliance?: string;
    replica?: string;
    writeGate?: boolean;
  } = {},
): Promise<Harness> {
  const appliance = options.appliance ?? `a${unique()}`;
  const fake = options.fake ?? new FakeAppliance({ fenceByEpoch: options.fenceByEpoch ?? false });
  const driver = new FakeApplianceDriver(fake, 'haproxy', { writeGate: options.writeGate === true });
  const lease = new RedisLeaseClient(redisUrl, { commandTimeoutMs: timings.commandTimeoutMs });
  const elector = new LeaderElector({
    group: appliance,
    holder: options.replica ?? 'r1',
    timings,
    lease,
    epochs: new PgEpochStore(database.db),
    keyPrefix: `t${unique()}:`,
  });
  elector.start();
  const leadership = await elector.waitForLeadership();
  const applier = new Applier({
    appliance,
    replicaId: options.replica ?? 'r1',
    driver,
    snapshots: new PgSnapshotSource(database.db),
    log: new PgApplyLog(database.db),
    leadership: () => elector.current(),
    secrets: new ArchivedSecretResolver(database.db, fleetKey),
    drift: { intervalMs: 3_600_000, policy: options.policy ?? 'correct' },
    retry: { baseMs: 20, capMs: 200 },
    random: () => 0.5,
  });
  await applier.init();
  return {
    appliance,
    fake,
    driver,
    applier,
    leadership,
    close: async () => {
      await applier.stop();
      await elector.stop();
      lease.close();
    },
  };
}

async function applies(
  appliance: string,
): Promise<
  { id: string; status: string; epoch: number; snapshot_id: string; operations: unknown; results: unknown }[]
> {
  const rows = await database.db
    .selectFrom('applies')
    .select(['id', 'status', 'epoch', 'snapshot_id', 'operations', 'results'])
    .where('appliance', '=', appliance)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ ...r, id: String(r.id), epoch: Number(r.epoch), snapshot_id: String(r.snapshot_id) }));
}

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

test('drift is recorded with before and after and corrected (policy correct)', async () => {
  const h = await harness({ policy: 'correct' });
  try {
    await writeSnapshot(database.db, desiredState(h.appliance, [pool('web', [1, 2]), pool('api', [3])]));
    await h.applier.reconcile('snapshot');
    assert.equal((await h.applier.checkDrift()).kind, 'clean');
    h.fake.tamper('pool/web', { members: ['10.6.6.6:80/active/1'] });
    h.fake.tamper('pool/api', null);
    const r = await h.applier.checkDrift();
    assert.ok(r.kind === 'drift');
    assert.equal(r.action, 'corrected');
    const [row] = await database.db
      .selectFrom('drift_observations')
      .selectAll()
      .where('appliance', '=', h.appliance)
      .execute();
    assert.deepEqual(row?.objects, ['pool/api', 'pool/web']);
    assert.deepEqual((row?.before as Record<string, unknown>)['pool/api'], null);
    assert.deepEqual((row?.before as Record<string, { members: string[] }>)['pool/web']?.members, [
      '10.6.6.6:80/active/1',
    ]);
    assert.deepEqual((row?.after as Record<string, { members: string[] }>)['pool/web']?.members, [
      '10.0.0.1:8080/active/1',
      '10.0.0.2:8080/active/1',
    ]);
    assert.equal(row?.action, 'corrected');
    assert.deepEqual(h.fake.objects.get('pool/web')?.['members'], ['10.0.0.1:8080/active/1', '10.0.0.2:8080/active/1']);
    assert.ok(h.fake.objects.has('pool/api'), 'the deleted object was restored');
    assert.equal((await applies(h.appliance)).at(-1)?.status, 'succeeded');
    assert.equal((await h.applier.checkDrift()).kind, 'clean');
  } finally {
    await h.close();
  }
});

test('a slow drift read-back does not hold up an apply, and one crossed by an apply is not compared (no false drift)', async () => {
  const h = await harness({ policy: 'correct' });
  try {
    await writeSnapshot(database.db, desiredState(h.appliance, [pool('web', [1, 2])]));
    await h.applier.reconcile('snapshot');
    let release: () => void = () => undefined;
    h.driver.readBackGate = new Promise<void>((resolve) => (release = resolve));
    const drift = h.applier.checkDrift();
    // While the drift read-back is still out, a new snapshot is applied at once (the read-back does not block it).
    await writeSnapshot(database.db, desiredState(h.appliance, [pool('web', [1, 2, 3])]));
    const applied = await h.applier.reconcile('snapshot');
    assert.equal(applied.kind, 'applied');
    h.driver.readBackGate = null;
    release();
    // The read-back shows the appliance before that apply: comparing it would report drift that is not there.
    assert.equal((await drift).kind, 'superseded');
    assert.equal(
      (await database.db.selectFrom('drift_observations').selectAll().where('appliance', '=', h.appliance).execute())
        .length,
      0,
    );
    assert.equal((await h.applier.checkDrift()).kind, 'clean');
  } finally {
    await h.close();
  }
});

test('drift under policy report is recorded and left alone until the next snapshot', async () => {
  const h = await harness({ policy: 'report' });
  try {
    await writeSnapshot(database.db, desiredState(h.appliance, [pool('web', [1, 2])]));
    await h.applier.reconcile('snapshot');
    const writes = h.fake.writes.length;
    h.fake.tamper('pool/web', { members: ['10.6.6.6:80/active/1'] });
    const r = await h.applier.checkDrift();
    assert.deepEqual(r.kind === 'drift' && [r.action, r.report.objects], ['reported', ['pool/web']]);
    await h.applier.reconcile('poll');
    await h.applier.reconcile('retry');
    assert.equal(h.fake.writes.length, writes, 'report policy: no write');
    assert.deepEqual(h.fake.objects.get('pool/web')?.['members'], ['10.6.6.6:80/active/1']);
    const [row] = await database.db
      .selectFrom('drift_observations')
      .select(['action'])
      .where('appliance', '=', h.appliance)
      .execute();
    assert.equal(row?.action, 'reported');
  } finally {
    await h.close();
  }
});

for (const writeGate of [false, true])
  test(`a stale epoch is fenced: nothing is sent and the apply is recorded as fenced${writeGate ? ' (driver started before the epoch check answers)' : ''}`, async () => {
    const h = await harness({ writeGate });
    try {
      await writeSnapshot(database.db, desiredState(h.appliance, [pool('web', [1])]));
      await h.applier.reconcile('snapshot');
      const writes = h.fake.writes.length;
      // Another replica was granted a newer epoch (e.g. after this one was paused); our Redis lease still looks valid.
      await new PgEpochStore(database.db).grant(h.appliance, 'other', 'run', () => 0);
      assert.ok(h.leadership.isValid());
      await writeSnapshot(database.db, desiredState(h.appliance, [pool('web', [1, 2])]));
      const r = await h.applier.reconcile('snapshot');
      assert.deepEqual(r.kind === 'applied' && [r.status, r.operations], ['fenced', 1]);
      assert.equal(h.fake.writes.length, writes, 'a fenced apply writes nothing');
      const log = await applies(h.appliance);
      assert.deepEqual(
        log.map((a) => a.status),
        ['succeeded', 'fenced'],
      );
      assert.deepEqual(log[1]!.results, []);
      // What the stale leader would have sent is kept with the fenced record, payload included.
      const refused = await new PgApplyLog(database.db).operationsOf(log[1]!.id);
      assert.deepEqual(
        refused?.map((o) => [o.objectType, o.objectName, o.action]),
        [['pool', 'web', 'update']],
      );
      assert.deepEqual(
        refused?.[0]?.payload,
        renderFake(canonicalizeDesiredState(desiredState(h.appliance, [pool('web', [1, 2])])))['pool/web'],
      );
    } finally {
      await h.close();
    }
  });

test('an epoch superseded during the apply: the record is refused (fenced), never accepted as applied', async () => {
  const fake = new FakeAppliance();
  const h = await harness({ fake });
  try {
    await writeSnapshot(database.db, desiredState(h.appliance, [pool('a', [1]), pool('b', [2])]));
    const original = h.driver.execute.bind(h.driver);
    let granted = false;
    h.driver.execute = async (op, context) => {
      if (!granted) {
        granted = true;
        await new PgEpochStore(database.db).grant(h.appliance, 'other', 'run', () => 0);
      }
      return original(op, context);
    };
    const r = await h.applier.reconcile('snapshot');
    assert.equal(r.kind === 'applied' && r.status, 'fenced');
    const log = await applies(h.appliance);
    assert.deepEqual(
      log.map((a) => [a.status, a.epoch]),
      [['fenced', h.leadership.epoch]],
    );
    const accepted = await sql<{
      n: string;
    }>`SELECT count(*) AS n FROM applies WHERE appliance = ${h.appliance} AND status <> 'fenced'`.execute(database.db);
    assert.equal(Number(accepted.rows[0]?.n), 0);
  } finally {
    await h.close();
  }
});

test('certificates are pushed with material resolved from the sealed Secret archive; no key material in the apply log', async () => {
  const h = await harness();
  try {
    const pem = {
      crt: '-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n',
      key: '-----BEGIN PRIVATE KEY-----\nMIIEsecret\n-----END PRIVATE KEY-----\n',
    };
    const sealed = sealSecretData(fleetKey, {
      'tls.crt': Buffer.from(pem.crt).toString('base64'),
      'tls.key': Buffer.from(pem.key).toString('base64'),
    });
    const object = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'shop-tls', namespace: 'default' },
      type: 'kubernetes.io/tls',
      data: sealed,
    };
    const event = create(KubeEventSchema, {
      cluster: 'c1',
      kind: KubeKind.SECRET,
      namespace: 'default',
      name: 'shop-tls',
      uid: 'u1',
      resourceVersion: '7',
      type: KubeEventType.ADDED,
      object: new TextEncoder().encode(JSON.stringify(object)),
    });
    const seq = Number.parseInt(randomBytes(3).toString('hex'), 16);
    await database.db
      .insertInto('events')
      .values({
        seq,
        subject: 'kube.c1.secret',
        msg_id: `m${seq}`,
        cluster: 'c1',
        kind: 'Secret',
        object_key: 'default/shop-tls',
        event_type: 'ADDED',
        payload: Buffer.from(toBinary(KubeEventSchema, event)),
      })
      .execute();
    const certificate = {
      name: 'shop-tls',
      secret: { cluster: 'c1', kind: 'Secret' as const, namespace: 'default', name: 'shop-tls' },
      fingerprint: sealed.fingerprint,
      hosts: ['shop.example.com'],
    };
    await writeSnapshot(database.db, desiredState(h.appliance, [pool('shop', [1])], { certificates: [certificate] }));
    const r = await h.applier.reconcile('snapshot');
    assert.equal(r.kind === 'applied' && r.status, 'succeeded');
    assert.deepEqual(h.driver.resolvedSecrets, ['default/shop-tls']);
    const log = await applies(h.appliance);
    const sent = await Promise.all(log.map((a) => new PgApplyLog(database.db).operationsOf(a.id)));
    assert.ok(
      sent.flat().some((o) => o?.objectType === 'certificate'),
      'the certificate write is in the apply log',
    );
    const dump = JSON.stringify([log, sent]);
    assert.ok(
      !dump.includes('MIIEsecret') && !dump.includes(sealed.sealed.ciphertext),
      'no secret material in the apply log',
    );
  } finally {
    await h.close();
  }
});

test('a follower decodes and renders every snapshot but never reads back, writes or records', async () => {
  const leader = await harness();
  const lease = new RedisLeaseClient(redisUrl, { commandTimeoutMs: timings.commandTimeoutMs });
  const follower = new LeaderElector({
    group: leader.appliance,
    holder: 'f',
    timings,
    lease,
    epochs: new PgEpochStore(database.db),
    keyPrefix: `t${unique()}:other`,
  });
  try {
    await writeSnapshot(database.db, desiredState(leader.appliance, [pool('web', [1])]));
    const fake = new FakeAppliance();
    const applier = new Applier({
      appliance: leader.appliance,
      replicaId: 'f',
      driver: new FakeApplianceDriver(fake),
      snapshots: new PgSnapshotSource(database.db),
      log: new PgApplyLog(database.db),
      leadership: () => follower.current(),
      secrets: new ArchivedSecretResolver(database.db, fleetKey),
      drift: { intervalMs: 3_600_000, policy: 'correct' },
    });
    await applier.init();
    const r = await applier.reconcile('snapshot');
    assert.ok(
      r.kind === 'follower' && applier.currentDesired()?.pools.length === 1,
      'the follower holds the decoded snapshot',
    );
    assert.equal(
      r.snapshotId,
      String(
        (
          await database.db
            .selectFrom('snapshot_heads')
            .select('snapshot_id')
            .where('appliance', '=', leader.appliance)
            .executeTakeFirstOrThrow()
        ).snapshot_id,
      ),
    );
    assert.equal(fake.writes.length, 0);
    assert.equal(fake.readBacks, 0, "no read-back per snapshot: the leader's cores are not spent on it");
    assert.equal((await applies(leader.appliance)).length, 0);
  } finally {
    lease.close();
    await leader.close();
  }
});
