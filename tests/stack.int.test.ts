import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { testStack } from '@portolan/infra';
import { busDeclaration, NatsEventBus, kubeEventSubject, kubeEventMsgId } from '@portolan/bus';
import { createTestDatabase, sql } from '@portolan/store';

const unique = (): string => randomBytes(4).toString('hex');

test('JetStream: published events are consumed in order, acked, and a republished id is deduplicated', async () => {
  const stack = await testStack();
  const stream = `T_${unique()}`;
  const bus = await NatsEventBus.open(
    stack.natsUrl,
    busDeclaration({ stream, replicas: 1, maxPayloadBytes: 1 << 20, subjectPrefix: stream }),
  );
  try {
    // The subject prefix scopes the streams to this test, so parallel tests do not collide.
    const cluster = `c${unique()}`;
    const subject = kubeEventSubject(cluster, 'ingress');
    const acks = [];
    for (let i = 1; i <= 5; i++) {
      acks.push(
        await bus.publish(subject, new TextEncoder().encode(`event-${i}`), {
          msgId: kubeEventMsgId(cluster, 'uid-1', String(i), 'MODIFIED'),
          headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
        }),
      );
    }
    assert.deepEqual(
      acks.map((a) => a.duplicate),
      [false, false, false, false, false],
    );
    const again = await bus.publish(subject, new TextEncoder().encode('event-3'), {
      msgId: kubeEventMsgId(cluster, 'uid-1', '3', 'MODIFIED'),
    });
    assert.equal(again.duplicate, true);

    const seen: string[] = [];
    const seqs: number[] = [];
    const controller = new AbortController();
    await bus.consumeBatches(
      'planner',
      async (batch) => {
        for (const m of batch) {
          seen.push(new TextDecoder().decode(m.data));
          seqs.push(m.streamSeq);
          assert.equal(m.headers.traceparent, '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
        }
        if (seen.length === 5) controller.abort();
      },
      { signal: controller.signal },
    );
    assert.deepEqual(seen, ['event-1', 'event-2', 'event-3', 'event-4', 'event-5']);
    assert.deepEqual(seqs, [1, 2, 3, 4, 5], 'the kube stream holds only observations: sequences are contiguous');
    assert.deepEqual(await bus.kubeStreamBounds(), { firstSeq: 1, lastSeq: 5 });
    assert.equal(new TextDecoder().decode((await bus.getKubeMessage(3))?.data), 'event-3');
    assert.equal(await bus.getKubeMessage(99), null, 'a sequence the stream does not hold reads as gone');
    const info = await bus.jsm.consumers.info(stream, 'planner');
    assert.equal(info.num_ack_pending, 0);
    assert.equal(info.num_pending, 0);
  } finally {
    await bus.jsm.streams.delete(stream).catch(() => {});
    await bus.jsm.streams.delete(bus.declaration.pipeline.name).catch(() => {});
    await bus.close();
  }
});

test('a connection closed under a consumer: the error is reported, and the loop ends when aborted', async () => {
  const stack = await testStack();
  const stream = `T_${unique()}`;
  const bus = await NatsEventBus.open(
    stack.natsUrl,
    busDeclaration({ stream, replicas: 1, maxPayloadBytes: 1 << 20, subjectPrefix: stream }),
  );
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown): void => void unhandled.push(e);
  process.on('unhandledRejection', onUnhandled);
  try {
    // Enough messages that the client pulls again while they are read: that pull, on a closed connection, throws
    // out of the message iterator.
    const cluster = `c${unique()}`;
    for (let i = 1; i <= 200; i++)
      await bus.publish(kubeEventSubject(cluster, 'ingress'), new TextEncoder().encode(`e${i}`), {
        msgId: kubeEventMsgId(cluster, 'uid-1', String(i), 'MODIFIED'),
      });
    const controller = new AbortController();
    const errors: unknown[] = [];
    const consuming = bus.consumeBatches(
      'planner',
      async () => {
        if (!bus.connection.isClosed()) await bus.connection.close();
      },
      { signal: controller.signal, onError: (e) => errors.push(e), maxBatch: 1 },
    );
    await new Promise((r) => setTimeout(r, 1500));
    controller.abort();
    const ended = await Promise.race([
      consuming.then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), 10_000)),
    ]);
    assert.equal(ended, true, 'the consume loop ended after the abort');
    assert.ok(errors.length > 0, 'the closed connection was reported to onError');
    assert.deepEqual(unhandled, [], 'no promise was left rejected without a handler');
  } finally {
    process.off('unhandledRejection', onUnhandled);
    const admin = await NatsEventBus.open(
      stack.natsUrl,
      busDeclaration({ stream, replicas: 1, maxPayloadBytes: 1 << 20, subjectPrefix: stream }),
    );
    await admin.jsm.streams.delete(stream).catch(() => {});
    await admin.jsm.streams.delete(admin.declaration.pipeline.name).catch(() => {});
    await admin.close();
  }
});

test('Postgres: a fresh migrated database per test file accepts and returns an archived event', async () => {
  const stack = await testStack();
  const tdb = await createTestDatabase(stack.postgresUrl);
  try {
    await tdb.db
      .insertInto('events')
      .values({
        seq: 1,
        subject: 'kube.dev.ingress',
        msg_id: 'ev:dev:u:1:ADDED',
        cluster: 'dev',
        kind: 'Ingress',
        object_key: 'shop/web',
        event_type: 'ADDED',
        payload: Buffer.from('x'),
      })
      .execute();
    const rows = await tdb.db.selectFrom('events').select(['seq', 'object_key']).execute();
    assert.deepEqual(rows, [{ seq: '1', object_key: 'shop/web' }]);
    const {
      rows: [version],
    } = await sql<{ v: string }>`SELECT current_setting('server_version_num') AS v`.execute(tdb.db);
    assert.ok(Number(version?.v) >= 150000);
  } finally {
    await tdb.drop();
  }
});

test('Redis: SET NX PX and GET against the real server', async () => {
  const stack = await testStack();
  const redis = new Redis(stack.redisUrl, { enableOfflineQueue: false, lazyConnect: true });
  await redis.connect();
  try {
    const key = `test:${unique()}`;
    assert.equal(await redis.set(key, 'holder-a', 'PX', 5000, 'NX'), 'OK');
    assert.equal(await redis.set(key, 'holder-b', 'PX', 5000, 'NX'), null);
    assert.equal(await redis.get(key), 'holder-a');
    await redis.del(key);
  } finally {
    redis.disconnect();
  }
});
