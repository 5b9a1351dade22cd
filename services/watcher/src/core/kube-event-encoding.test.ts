import { test } from 'node:test';
import assert from 'node:assert/strict';
import { create, fromBinary, timestampFromMs, toBinary, KubeEventSchema } from '@portolan/proto';
import { encodeKubeEvent, type KubeEventShape } from './kube-event-encoding.ts';
import { kubeEventMessage } from './bus-messages.ts';
import { watchedKind } from './watched-kinds.ts';

// Deterministic pseudo-random generator (mulberry32) so a failure is reproducible.
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const alphabet = [
  'a',
  'Z',
  '0',
  '-',
  '/',
  '.',
  'é',
  'ß',
  '€',
  '中',
  '😀',
  '\ud800',
  '\udc00',
  '\u0000',
  '\u007f',
  '\u0080',
  '\u07ff',
  '\u0800',
];

function randomString(r: () => number, max: number): string {
  const n = Math.floor(r() * r() * max);
  let s = '';
  for (let i = 0; i < n; i++) s += alphabet[Math.floor(r() * alphabet.length)]!;
  return s;
}

function randomEvent(r: () => number): KubeEventShape {
  const object = new Uint8Array(Math.floor(r() * r() * 40_000));
  for (let i = 0; i < object.length; i += 97) object[i] = Math.floor(r() * 256);
  const big = (): bigint => (r() < 0.2 ? 0n : BigInt(Math.floor(r() * 2 ** 53)) * (r() < 0.5 ? 1n : 2047n));
  return create(KubeEventSchema, {
    cluster: randomString(r, 20),
    kind: Math.floor(r() * 7),
    namespace: randomString(r, 70),
    name: randomString(r, 300),
    uid: randomString(r, 40),
    resourceVersion: randomString(r, 12),
    type: Math.floor(r() * 4),
    object,
    listGeneration: big(),
    omittedReason: randomString(r, 200),
    noticedByRelist: r() < 0.3,
    ...(r() < 0.9
      ? { observedAt: timestampFromMs((r() < 0.1 ? -1 : 1) * (r() < 0.2 ? 1000 : 1) * Math.floor(r() * 2 ** 44)) }
      : {}),
  });
}

test('a KubeEvent encodes to the same bytes as protobuf-es toBinary, for any field values (unicode, lone surrogates, defaults, large objects)', () => {
  const r = rng(42);
  for (let i = 0; i < 2_000; i++) {
    const e = randomEvent(r);
    assert.deepEqual(encodeKubeEvent(e), toBinary(KubeEventSchema, e), `event ${i}`);
  }
});

test('the events the watcher builds decode back to the same message and encode like protobuf-es', () => {
  const o = { namespace: 'shop', name: 'web', uid: '7f0c2a1e-0000-4000-8000-000000000001', resourceVersion: '123456' };
  const m = kubeEventMessage(
    'prod-eu',
    watchedKind('EndpointSlice'),
    'MODIFIED',
    o,
    new TextEncoder().encode('{"kind":"EndpointSlice"}'),
    { generation: 1_763_790_000_000_001n, observedAtMs: 1_763_790_000_123, omittedReason: '' },
  );
  assert.equal(m.type, 'event');
  if (m.type !== 'event') return;
  const bytes = encodeKubeEvent(m.message);
  assert.deepEqual(bytes, toBinary(KubeEventSchema, m.message));
  const back = fromBinary(KubeEventSchema, bytes);
  assert.equal(back.name, 'web');
  assert.equal(back.listGeneration, 1_763_790_000_000_001n);
  assert.equal(back.observedAt?.nanos, 123_000_000);
  assert.deepEqual(back.object, m.message.object);
});
