import { test } from 'node:test';
import assert from 'node:assert/strict';
import { trace } from '@portolan/telemetry';
import { kubeEventMessage, listMarkerMessages, watchedKind, type OutboundMessage } from '../core/index.ts';
import { BusPublisher, type PublishTarget } from './bus-publisher.ts';

const ingressKind = watchedKind('Ingress');
const event = (name: string, rv: number): OutboundMessage =>
  kubeEventMessage(
    'c',
    ingressKind,
    'MODIFIED',
    { namespace: 'a', name, uid: `uid-${name}`, resourceVersion: String(rv) },
    new Uint8Array(8),
    { generation: 1n, observedAtMs: 0, omittedReason: '' },
  );
const marker = (rv: number): OutboundMessage[] =>
  listMarkerMessages('c', ingressKind, String(rv), BigInt(rv), [['a/x'], ['a/y']], 0);

/** A broker stand-in that stores by message id (like JetStream dedup), answers after random delays, and fails on demand. */
class FlakyBroker implements PublishTarget {
  readonly stored: string[] = [];
  readonly failuresLeft = new Map<string, number>();
  gate: Promise<void> = Promise.resolve();
  async publish(_subject: string, _data: Uint8Array, options: { msgId: string }): Promise<{ duplicate: boolean }> {
    await this.gate;
    await new Promise((r) => setTimeout(r, Math.random() * 3));
    const left = this.failuresLeft.get(options.msgId) ?? 0;
    if (left > 0) {
      this.failuresLeft.set(options.msgId, left - 1);
      throw new Error('timeout waiting for ack');
    }
    const duplicate = this.stored.includes(options.msgId);
    if (!duplicate) this.stored.push(options.msgId);
    return { duplicate };
  }
  async provision(): Promise<void> {}
}

function publisher(
  target: PublishTarget,
  overrides: Partial<ConstructorParameters<typeof BusPublisher>[0]> = {},
): BusPublisher {
  return new BusPublisher({
    target,
    maxPendingMessages: 1000,
    maxPendingBytes: 1 << 20,
    maxInFlight: 16,
    publishTimeoutMs: 100,
    tracer: trace.getTracer('test'),
    random: () => 0,
    connected: () => true,
    onTooLarge: (m) => m,
    ...overrides,
  });
}

test("with failures and retries in flight, each object's messages are stored in the order observed and markers stay in place", async () => {
  const broker = new FlakyBroker();
  const p = publisher(broker);
  const sent: OutboundMessage[] = [];
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < 60; i++) sent.push(event(`o${i % 7}`, round * 100 + i));
    sent.push(...marker(round * 100 + 99));
  }
  // Every third message fails twice before it is acked.
  sent.forEach((m, i) => {
    if (i % 3 === 0) broker.failuresLeft.set(m.msgId, 2);
  });
  for (const m of sent) await p.enqueue(m);
  await p.flushed();

  assert.deepEqual([...broker.stored].sort(), sent.map((m) => m.msgId).sort(), 'everything stored exactly once');
  const position = new Map(broker.stored.map((id, i) => [id, i]));
  for (let k = 0; k < 7; k++) {
    const ids = sent.filter((m) => m.orderKey === `ingress/a/o${k}`).map((m) => m.msgId);
    const stored = [...ids].sort((a, b) => position.get(a)! - position.get(b)!);
    assert.deepEqual(stored, ids, `object o${k} in observation order`);
  }
  sent.forEach((m, i) => {
    if (m.type !== 'marker') return;
    for (const before of sent.slice(0, i))
      if (before.type === 'event')
        assert.ok(position.get(before.msgId)! < position.get(m.msgId)!, 'marker after what preceded it');
    for (const after of sent.slice(i + 1))
      if (after.type === 'event')
        assert.ok(position.get(after.msgId)! > position.get(m.msgId)!, 'marker before what followed it');
  });
});

test('while the broker does not answer, the buffer fills to its bound and then holds the producer back; nothing is dropped', async () => {
  const broker = new FlakyBroker();
  let release!: () => void;
  broker.gate = new Promise((r) => (release = r));
  const p = publisher(broker, { maxPendingMessages: 5 });
  for (let i = 0; i < 5; i++) await p.enqueue(event(`o${i}`, i));
  let sixthHeld = true;
  const sixth = p.enqueue(event('o5', 5)).then(() => (sixthHeld = false));
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(sixthHeld, true, 'the sixth message waits for room');
  assert.equal(p.pending, 5);
  release();
  await sixth;
  await p.flushed();
  assert.equal(broker.stored.length, 6);
});

test('an event the broker refuses for its size is replaced by the stub the watcher provides', async () => {
  const stored: string[] = [];
  const target: PublishTarget = {
    async publish(_s, data, o) {
      if (data.length > 100) throw new Error('MAX_PAYLOAD_EXCEEDED');
      stored.push(o.msgId);
      return { duplicate: false };
    },
    async provision() {},
  };
  const big = kubeEventMessage(
    'c',
    ingressKind,
    'ADDED',
    { namespace: 'a', name: 'big', uid: 'u', resourceVersion: '1' },
    new Uint8Array(500),
    { generation: 1n, observedAtMs: 0, omittedReason: '' },
  );
  const stub = kubeEventMessage(
    'c',
    ingressKind,
    'ADDED',
    { namespace: 'a', name: 'big', uid: 'u', resourceVersion: '1' },
    new Uint8Array(2),
    { generation: 1n, observedAtMs: 0, omittedReason: 'ObjectTooLarge: refused' },
  );
  let replaced = 0;
  const p = publisher(target, { onTooLarge: () => (replaced++, stub) });
  await p.enqueue(big);
  await p.enqueue(event('next', 2));
  await p.flushed();
  assert.equal(replaced, 1);
  assert.deepEqual(
    [...stored].sort(),
    [stub.msgId, event('next', 2).msgId].sort(),
    'the stub went out and the next object was not held up',
  );
});

test('a message that never settles is reported as stuck, with where it waits, and holds back its object only', async () => {
  const never = new Promise<never>(() => {});
  const target: PublishTarget = {
    // o1's publish is never answered; o2's first finds no stream, and re-declaring it never returns.
    publish: (_subject, _data, options) =>
      options.msgId.includes('uid-o1:')
        ? never
        : options.msgId.includes('uid-o2:')
          ? Promise.reject(new Error('no responders (503): stream not found'))
          : Promise.resolve({ duplicate: false }),
    provision: () => never,
  };
  const p = publisher(target);
  for (const m of [event('o1', 1), event('o2', 2), event('o3', 3), event('o1', 4)]) await p.enqueue(m);
  await new Promise((r) => setTimeout(r, 50));
  const stuck = p.stuck(0);
  assert.deepEqual(stuck.map((s) => [s.orderKey, s.stage]).sort(), [
    [event('o1', 1).orderKey, 'publishing'],
    [event('o2', 2).orderKey, 'reprovisioning'],
  ]);
  assert.equal(p.pending, 3, 'o3 went out; the second o1 waits behind the first');
  assert.deepEqual(p.stuck(3600), [], 'nothing is older than an hour');
  p.close();
});
