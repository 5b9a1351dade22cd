import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { testStack } from '@portolan/infra';
import { LeaderElector, PgEpochStore, RedisLeaseClient } from '@portolan/leadership';
import { create, KubeEventSchema, KubeEventType, KubeKind, toBinary } from '@portolan/proto';
import { fleetKeyFromBytes, sealSecretData } from '@portolan/secret-envelope';
import { createTestDatabase, sql, type TestDatabase } from '@portolan/store';
import { canonicalizeDesiredState } from '@portolan/snapshot';
import { Applier } from './applier.ts';
import { ArchivedSecretResolver } from './adapters/archived-secret-resolver.ts';
import { PgApplyLog } from './adapters/pg-apply-log.ts';
import { PgSnapshotSource } from './adapters/pg-snapshot-source.ts';
import {
  applies as appliesOf,
  harness as startHarness,
  testTimings as timings,
  unique,
  type Harness,
  type HarnessOptions,
} from './testing/applier-harness.ts';
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

const harness = (options: HarnessOptions = {}): Promise<Harness> =>
  startHarness({ database, redisUrl, fleetKey }, options);
const applies = (appliance: string): ReturnType<typeof appliesOf> => appliesOf(database, appliance);

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

test("a follower waits for the leader's first apply, then decodes and renders every snapshot but never reads back, writes or records", async () => {
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
    const early = await applier.reconcile('snapshot');
    assert.equal(early.kind, 'follower');
    assert.equal(applier.currentDesired(), null, 'no decode before the leader has applied: the cores are its');
    assert.equal((await leader.applier.reconcile('snapshot')).kind, 'applied');
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
    assert.equal((await applies(leader.appliance)).length, 1, "only the leader's apply is recorded");
  } finally {
    lease.close();
    await leader.close();
  }
});
