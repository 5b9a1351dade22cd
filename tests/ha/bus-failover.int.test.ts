// The bus on a 3-node NATS cluster: streams at replication 3, and a client that keeps publishing and consuming,
// without a restart, when the node holding the stream's leader or the node it is connected to is killed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { busDeclaration, kubeEventSubject, NatsEventBus } from '@portolan/bus';
import { JetStreamAckTarget, JetStreamPublishError } from '@portolan/watcher';
import { firstSuccess, haStackFixture } from './ha-fixture.ts';

const fixture = haStackFixture();

/** Publishes message `n` with its own id; resolves once the stream acknowledged it. */
async function publish(bus: NatsEventBus, n: number): Promise<void> {
  await bus.publish(kubeEventSubject('ha', 'ingress'), new TextEncoder().encode(String(n)), {
    msgId: `m-${n}`,
    timeoutMs: 1000,
  });
}

/** Kills `node`, then publishes until one is acked; returns the seconds from the kill to that ack. */
async function outage(bus: NatsEventBus, node: string, next: () => number): Promise<number> {
  await fixture.stack.kill(node);
  const killed = performance.now();
  const { at } = await firstSuccess(() => publish(bus, next()), 30_000);
  return (at - killed) / 1000;
}

/** The node the client is connected to, once the stream's leader is elsewhere (asking the leader to step down). */
async function clientNodeWithoutStreamLeader(bus: NatsEventBus): Promise<string> {
  const ports = fixture.stack.config.nats;
  for (let attempt = 0; attempt < 10; attempt++) {
    const server = bus.connection.getServer();
    const node = `nats-${ports.findIndex((p) => server.endsWith(`:${p.client}`)) + 1}`;
    const { leader } = (await firstSuccess(() => bus.jsm.streams.info('HA'), 10_000)).value.cluster ?? {};
    if (leader !== undefined && leader !== node) return node;
    await bus.connection.request('$JS.API.STREAM.LEADER.STEPDOWN.HA', undefined, { timeout: 2000 }).catch(() => {});
    await sleep(1000);
  }
  return assert.fail("the stream leader stayed on the client's node");
}

test('publishes are acked again within seconds of losing the stream leader, then the connected node', async () => {
  const stack = fixture.stack;
  const declaration = busDeclaration({ stream: 'HA', replicas: 3, maxPayloadBytes: 1 << 20 });
  const bus = await NatsEventBus.open(stack.endpoints.natsUrl, declaration, { name: 'ha-test', timeoutMs: 2000 });
  try {
    const info = await bus.jsm.streams.info('HA');
    assert.equal(info.config.num_replicas, 3);
    assert.equal(info.cluster?.replicas?.length, 2, 'the stream has a leader and two replicas');
    let n = 0;
    // Acks that failed during an outage are retried under a new id: the test counts only acknowledged ones.
    const acked = new Set<number>();
    const next = (): number => {
      n += 1;
      return n;
    };
    for (let i = 0; i < 20; i++) await publish(bus, next()).then(() => acked.add(n));
    const leaderGap = await outage(bus, info.cluster!.leader!, next);
    acked.add(n);
    await stack.up();
    const clientNode = await clientNodeWithoutStreamLeader(bus);
    const connectedGap = await outage(bus, clientNode, next);
    acked.add(n);
    assert.ok(!bus.connection.getServer().endsWith(`:${stack.service(clientNode).port}`), 'the client moved');
    for (let i = 0; i < 20; i++) await publish(bus, next()).then(() => acked.add(n));
    process.stdout.write(
      `# acks resumed ${leaderGap.toFixed(2)} s after the stream leader's node was killed, ` +
        `${connectedGap.toFixed(2)} s after the client's node (not the leader's) was\n`,
    );
    // A new stream leader waits out a Raft election timeout (2 to 5 s in nats-server 2.9); a reconnect does not.
    assert.ok(leaderGap < 15, `acks resumed ${leaderGap} s after the leader's node was killed`);
    assert.ok(connectedGap < 2, `acks resumed ${connectedGap} s after the client's node was killed`);

    const consumed = new Set<number>();
    const controller = new AbortController();
    const consuming = bus.consumeBatches(
      'planner',
      async (batch) => {
        for (const m of batch) consumed.add(Number(new TextDecoder().decode(m.data)));
        if ([...acked].every((a) => consumed.has(a))) controller.abort();
      },
      { signal: controller.signal },
    );
    await Promise.race([consuming, sleep(20_000, undefined, { ref: false })]);
    controller.abort();
    assert.deepEqual(
      [...acked].filter((a) => !consumed.has(a)),
      [],
      'every acknowledged message is consumed',
    );
  } finally {
    await bus.close();
  }
});

test('a publish whose stream leader died is failed for a resend once a new leader is elected, not at its deadline', async () => {
  const stack = fixture.stack;
  await stack.up();
  const declaration = busDeclaration({ stream: 'HA2', replicas: 3, maxPayloadBytes: 1 << 20, subjectPrefix: 'ha2' });
  const bus = await NatsEventBus.open(stack.endpoints.natsUrl, declaration, { name: 'ha-ack-test', timeoutMs: 2000 });
  const target = new JetStreamAckTarget(bus);
  try {
    const subject = kubeEventSubject('ha2', 'ingress');
    const data = new TextEncoder().encode('x');
    const clientNode = `nats-${stack.config.nats.findIndex((p) => bus.connection.getServer().endsWith(`:${p.client}`)) + 1}`;
    // The stream's leader on a node the client is not connected to: the client stays, the leader goes.
    for (let i = 0; (await bus.jsm.streams.info('HA2')).cluster?.leader === clientNode; i++) {
      assert.ok(i < 10, "the stream leader stayed on the client's node");
      await bus.connection.request('$JS.API.STREAM.LEADER.STEPDOWN.HA2', undefined, { timeout: 2000 }).catch(() => {});
      await sleep(1000);
    }
    await target.publish(subject, data, { msgId: 'before', timeoutMs: 5000 });
    const leader = (await bus.jsm.streams.info('HA2')).cluster!.leader!;
    // The leader hangs, a publish goes to it, then it dies: that publish is in flight and will never be answered.
    await stack.signal(leader, 'SIGSTOP');
    const inFlight = target.publish(subject, data, { msgId: 'during', timeoutMs: 120_000 }).then(
      () => 'acked',
      (e: unknown) => (e instanceof JetStreamPublishError ? e.code : String(e)),
    );
    await sleep(200);
    await stack.kill(leader);
    // Its deadline is far beyond any election: only the new leader's advisory can settle it within the test.
    const outcome = await Promise.race([inFlight, sleep(60_000, 'still waiting after 60 s')]);
    assert.equal(outcome, 'JETSTREAM_ACK_LOST', 'the publish in flight is failed for a resend');
    const { at } = await firstSuccess(
      () => target.publish(subject, data, { msgId: 'during', timeoutMs: 2000 }),
      30_000,
    );
    assert.ok(at > 0);
    const info = await bus.jsm.streams.info('HA2');
    assert.equal(info.state.messages, 2, 'the resent message is stored once');
  } finally {
    target.close();
    await bus.close();
    await stack.up();
  }
});

test('a stream leader asked to step down hands over to another replica, and publishes go on', async () => {
  const declaration = busDeclaration({
    stream: 'HA_STEPDOWN',
    replicas: 3,
    maxPayloadBytes: 1 << 20,
    subjectPrefix: 'stepdown',
  });
  const bus = await NatsEventBus.open(fixture.stack.endpoints.natsUrl, declaration, { name: 'ha-stepdown' });
  try {
    const before = (await bus.jsm.streams.info('HA_STEPDOWN')).cluster?.leader;
    assert.ok(before !== undefined, 'the stream has a leader');
    await bus.stepDownKubeLeader();
    const { value: after } = await firstSuccess(async () => {
      const leader = (await bus.jsm.streams.info('HA_STEPDOWN')).cluster?.leader;
      if (leader === undefined || leader === before) throw new Error(`leader still ${leader}`);
      return leader;
    }, 15_000);
    assert.notEqual(after, before);
    await firstSuccess(
      () =>
        bus.publish(kubeEventSubject('ha', 'ingress'), new TextEncoder().encode('after'), {
          msgId: 'after-stepdown',
          timeoutMs: 1000,
        }),
      15_000,
    );
  } finally {
    await bus.jsm.streams.delete('HA_STEPDOWN').catch(() => undefined);
    await bus.jsm.streams.delete(declaration.pipeline.name).catch(() => undefined);
    await bus.close();
  }
});
