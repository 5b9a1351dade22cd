import { randomBytes } from 'node:crypto';
import { busDeclaration, NatsEventBus } from '@portolan/bus';
import { createTestDatabase } from '@portolan/store';
import { testStack } from '@portolan/infra';
import { summarize, type Benchmark, type Figure } from '../figure.ts';

/**
 * The pipeline's physical floor on this machine: a durable JetStream publish (acked) and a durable Postgres
 * commit of one event row. Every pipeline latency below is read against these.
 */
export const busFloor: Benchmark = {
  name: 'floor',
  async run({ quick }) {
    const n = quick ? 300 : 2000;
    const stack = await testStack();
    const stream = `BENCH_${randomBytes(4).toString('hex')}`;
    const bus = await NatsEventBus.open(
      stack.natsUrl,
      busDeclaration({ stream, replicas: 1, maxPayloadBytes: 1 << 20, subjectPrefix: stream }),
    );
    const payload = randomBytes(512);
    const publish: number[] = [];
    try {
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        await bus.publish(`kube.bench.endpointslice`, payload, { msgId: `bench-${stream}-${i}` });
        publish.push(performance.now() - t);
      }
    } finally {
      await bus.jsm.streams.delete(stream).catch(() => {});
      await bus.jsm.streams.delete(bus.declaration.pipeline.name).catch(() => {});
      await bus.close();
    }
    const tdb = await createTestDatabase(stack.postgresUrl);
    const commit: number[] = [];
    try {
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        await tdb.db
          .insertInto('events')
          .values({
            seq: i + 1,
            subject: 'kube.bench.endpointslice',
            msg_id: `m${i}`,
            cluster: 'bench',
            kind: 'EndpointSlice',
            object_key: `ns/s${i}`,
            event_type: 'MODIFIED',
            payload,
          })
          .execute();
        commit.push(performance.now() - t);
      }
    } finally {
      await tdb.drop();
    }
    const p = summarize(publish);
    const c = summarize(commit);
    const figures: Figure[] = [
      { name: 'JetStream publish+ack (512 B)', unit: 'ms', value: p.median, p99: p.p99 },
      { name: 'Postgres durable insert (512 B)', unit: 'ms', value: c.median, p99: c.p99 },
    ];
    return figures;
  },
};
