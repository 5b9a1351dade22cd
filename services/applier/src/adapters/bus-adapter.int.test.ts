import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { busDeclaration, NatsEventBus, planSubject } from '@portolan/bus';
import { testStack } from '@portolan/infra';
import { LeaderElector, PgEpochStore, RedisLeaseClient, leaseTimings } from '@portolan/leadership';
import {
  ApplyRecordedSchema,
  ApplyStatus,
  DriftAction,
  DriftObservedSchema,
  SnapshotCommittedSchema,
  create,
  fromBinary,
  toBinary,
} from '@portolan/proto';
import { fleetKeyFromBytes } from '@portolan/secret-envelope';
import { createTestDatabase, type TestDatabase } from '@portolan/store';
import { Applier } from '../applier.ts';
import { ApplierBus } from './bus-adapter.ts';
import { ArchivedSecretResolver } from './archived-secret-resolver.ts';
import { PgApplyLog } from './pg-apply-log.ts';
import { PgSnapshotSource } from './pg-snapshot-source.ts';
import { FakeAppliance, FakeApplianceDriver } from '../testing/fake-appliance.ts';
import { startPrivateNats, type PrivateNats } from '../testing/private-nats.ts';
import { writeSnapshot } from '../testing/snapshot-writer.ts';
import { desiredState, pool } from '../testing/desired-fixtures.ts';

let database: TestDatabase;
let redisUrl: string;
let nats: PrivateNats;
let bus: NatsEventBus;
before(async () => {
  const stack = await testStack();
  redisUrl = stack.redisUrl;
  database = await createTestDatabase(stack.postgresUrl);
  nats = await startPrivateNats();
  bus = await NatsEventBus.open(
    nats.url,
    busDeclaration({ stream: 'PORTOLAN', replicas: 1, maxPayloadBytes: 1 << 20 }),
  );
});
after(async () => {
  await bus.close();
  await nats.stop();
  await database.drop();
});

test('a SnapshotCommitted on plan.<appliance> triggers an apply at once; ApplyRecorded and DriftObserved are published', async () => {
  const appliance = `a${randomBytes(4).toString('hex')}`;
  const t = leaseTimings({ ttlMs: 2000, renewEveryMs: 400, retryEveryMs: 100 });
  assert.ok(t.ok);
  const lease = new RedisLeaseClient(redisUrl, { commandTimeoutMs: t.timings.commandTimeoutMs });
  const elector = new LeaderElector({
    group: appliance,
    holder: 'r1',
    timings: t.timings,
    lease,
    epochs: new PgEpochStore(database.db),
    keyPrefix: `t${appliance}:`,
  });
  elector.start();
  const leadership = await elector.waitForLeadership();
  const fake = new FakeAppliance();
  const applier = new Applier({
    appliance,
    replicaId: 'r1',
    driver: new FakeApplianceDriver(fake),
    snapshots: new PgSnapshotSource(database.db),
    log: new PgApplyLog(database.db),
    leadership: () => elector.current(),
    secrets: new ArchivedSecretResolver(database.db, fleetKeyFromBytes(randomBytes(32), 'k1')),
    drift: { intervalMs: 3_600_000, policy: 'report' },
    bus: new ApplierBus(bus, appliance),
    pollMs: 3_600_000,
  });
  const received: { subject: string; data: Uint8Array }[] = [];
  const sub = bus.connection.subscribe(`apply.${appliance}.>`);
  const sub2 = bus.connection.subscribe(`apply.${appliance}`);
  for (const s of [sub, sub2])
    void (async () => {
      for await (const m of s) received.push({ subject: m.subject, data: m.data });
    })();
  try {
    await applier.start();
    const id = await writeSnapshot(database.db, desiredState(appliance, [pool('web', [1])]));
    const msg = create(SnapshotCommittedSchema, { appliance, snapshotId: BigInt(id), contentHash: 'x' });
    await bus.publish(planSubject(appliance), toBinary(SnapshotCommittedSchema, msg), {
      msgId: `plan:${appliance}:${id}`,
    });
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && !received.some((r) => r.subject === `apply.${appliance}`))
      await new Promise((r) => setTimeout(r, 20));
    const applied = received.find((r) => r.subject === `apply.${appliance}`);
    assert.ok(applied, 'ApplyRecorded published after the plan message (the head poll is an hour away)');
    const rec = fromBinary(ApplyRecordedSchema, applied.data);
    assert.deepEqual(
      [rec.status, rec.snapshotId, rec.epoch, rec.operations, rec.leaderId],
      [ApplyStatus.SUCCEEDED, BigInt(id), BigInt(leadership.epoch), 2, 'r1'],
    );
    fake.tamper('pool/web', null);
    const drift = await applier.checkDrift();
    assert.equal(drift.kind, 'drift');
    while (Date.now() < deadline && !received.some((r) => r.subject === `apply.${appliance}.drift`))
      await new Promise((r) => setTimeout(r, 20));
    const d = fromBinary(DriftObservedSchema, received.find((r) => r.subject === `apply.${appliance}.drift`)!.data);
    assert.deepEqual(
      [d.objects, d.action, JSON.parse(new TextDecoder().decode(d.before))],
      [['pool/web'], DriftAction.REPORTED, { 'pool/web': null }],
    );
  } finally {
    sub.unsubscribe();
    sub2.unsubscribe();
    await applier.stop();
    await elector.stop();
    lease.close();
  }
});
