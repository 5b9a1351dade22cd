import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { create, fromBinary, toBinary, timestampMs, KubeEventSchema } from '@portolan/proto';
import { readKubeEvent, type KubeEventFields } from './kube-event-wire.ts';

/** What the generic decoder reads, in the fast reader's shape; null when it throws. */
function generic(data: Uint8Array): KubeEventFields | null {
  try {
    const e = fromBinary(KubeEventSchema, data);
    return {
      cluster: e.cluster,
      kind: e.kind,
      namespace: e.namespace,
      name: e.name,
      uid: e.uid,
      resourceVersion: e.resourceVersion,
      type: e.type,
      object: e.object,
      listGeneration: Number(e.listGeneration),
      observedAtMs: e.observedAt ? timestampMs(e.observedAt) : 0,
      omittedReason: e.omittedReason,
      noticedByRelist: e.noticedByRelist,
    };
  } catch {
    return null;
  }
}

const text = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.constantFrom('', 'shop', 'ü-ß', '\uFEFFbom'));
const event = fc.record({
  cluster: text,
  kind: fc.oneof(fc.integer({ min: 0, max: 13 }), fc.integer({ min: -5, max: 2 ** 31 - 1 })),
  namespace: text,
  name: text,
  uid: text,
  resourceVersion: text,
  type: fc.oneof(fc.integer({ min: 0, max: 4 }), fc.integer({ min: -5, max: 2 ** 31 - 1 })),
  object: fc.uint8Array({ maxLength: 200 }),
  listGeneration: fc.oneof(fc.bigInt({ min: 0n, max: 1000n }), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n })),
  observedAt: fc.option(
    fc.record({
      seconds: fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 40n }), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })),
      nanos: fc.integer({ min: -999_999_999, max: 999_999_999 }),
    }),
    { nil: undefined },
  ),
  omittedReason: text,
  noticedByRelist: fc.boolean(),
});

test('the fast KubeEvent reader gives what the generic decoder gives, or leaves the message to it', () => {
  fc.assert(
    fc.property(event, (fields) => {
      const bytes = toBinary(KubeEventSchema, create(KubeEventSchema, fields));
      const fast = readKubeEvent(bytes);
      if (fast !== null) assert.deepEqual(fast, generic(bytes));
      // The plain encodings the watcher writes are always read by the fast path.
      const plain =
        fields.kind >= 0 &&
        fields.type >= 0 &&
        fields.listGeneration <= BigInt(Number.MAX_SAFE_INTEGER) &&
        (fields.observedAt === undefined ||
          (fields.observedAt.seconds >= 0n && fields.observedAt.seconds <= 2n ** 40n && fields.observedAt.nanos >= 0));
      if (plain) assert.notEqual(fast, null);
    }),
    { numRuns: 2000 },
  );
});

test('damaged, reordered, repeated and unknown fields: the fast reader agrees with the generic decoder or defers', () => {
  fc.assert(
    fc.property(
      event,
      fc.array(fc.tuple(fc.nat(400), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }),
      fc.uint8Array({ maxLength: 40 }),
      fc.nat(400),
      (fields, edits, extra, cut) => {
        const whole = toBinary(KubeEventSchema, create(KubeEventSchema, fields));
        const bytes = new Uint8Array([...whole, ...extra]);
        for (const [at, value] of edits) if (bytes.length > 0) bytes[at % bytes.length] = value;
        for (const data of [bytes, bytes.subarray(0, cut % (bytes.length + 1))]) {
          const fast = readKubeEvent(data);
          if (fast !== null) assert.deepEqual(fast, generic(data));
        }
      },
    ),
    { numRuns: 3000 },
  );
});

test('a message written twice over itself is read last-field-wins, as the generic decoder reads it', () => {
  const a = toBinary(KubeEventSchema, create(KubeEventSchema, { cluster: 'a', name: 'x', kind: 1, type: 1 }));
  const b = toBinary(KubeEventSchema, create(KubeEventSchema, { cluster: 'b', uid: 'u', kind: 3 }));
  const both = new Uint8Array([...a, ...b]);
  assert.deepEqual(readKubeEvent(both), generic(both));
  assert.equal(readKubeEvent(both)?.cluster, 'b');
});
