import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Pool, PoolMember } from '@portolan/desired-state';
import { pieceBytes, pieceIdOf } from './piece.ts';
import { SnapshotEncoder } from './snapshot-encoder.ts';

const memberArb: fc.Arbitrary<PoolMember> = fc.record({
  // Few distinct values, so lists overlap from one step to the next; odd ones (non-ASCII, NUL) take the general path.
  address: fc.constantFrom('10.0.0.1', '10.0.0.10', '10.0.0.2', 'fd00::1', 'hôte.example', 'a\u0000b'),
  port: fc.constantFrom(80, 8080, 443),
  state: fc.constantFrom('active', 'draining'),
  weight: fc.constantFrom(1, 2),
  cluster: fc.constantFrom('c1', 'c2'),
  node: fc.constantFrom('', 'n1'),
});
// Sorted and unique most of the time (what the planner sends), or any order with duplicates.
const membersArb = fc.oneof(
  fc.uniqueArray(memberArb, { selector: (m) => `${m.address}|${m.port}|${m.cluster}`, maxLength: 8 }).map((ms) => ms.sort((a, b) => (a.address !== b.address ? (a.address < b.address ? -1 : 1) : a.port - b.port || (a.cluster < b.cluster ? -1 : a.cluster > b.cluster ? 1 : 0)))),
  fc.array(memberArb, { maxLength: 8 }),
);

function pool(name: string, members: readonly PoolMember[]): Pool {
  return { name, members, monitor: null, persistence: null, tlsToBackend: false, customization: null, services: [{ cluster: 'c1', kind: 'Service', namespace: 'ns', name: 'web' }] };
}

test('property: after any history of member lists, the incremental encoding equals a fresh one and every piece it needs was emitted', () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.constantFrom('p1', 'p2'), membersArb), { minLength: 1, maxLength: 12 }), (steps) => {
      const incremental = new SnapshotEncoder('lb', 'haproxy');
      const stored = new Map<string, string>();
      const current = new Map<string, readonly PoolMember[]>();
      for (const [name, members] of steps) {
        incremental.setPool(pool(name, members));
        current.set(name, members);
        const { root, pieces } = incremental.commit();
        for (const [id, text] of pieces) {
          assert.equal(pieceIdOf(text), id);
          stored.set(id, text);
        }
        const fresh = new SnapshotEncoder('lb', 'haproxy');
        for (const [n, ms] of current) fresh.setPool(pool(n, ms));
        const expected = fresh.commit();
        assert.equal(root, expected.root);
        for (const id of expected.pieces.keys()) assert.ok(stored.has(id), `piece ${id} was never emitted`);
      }
    }),
    { numRuns: 300 },
  );
});

test('piece bytes are the UTF-8 encoding of each piece, ASCII or not', () => {
  const texts = new Map([
    ['a', '{"host":"shop.example.com"}'],
    ['b', '{"message":"Zertifikat für hôte — ✓ 🚀"}'],
    ['c', '{"n":1}'],
    ['d', ''],
  ]);
  const bytes = pieceBytes(texts);
  assert.deepEqual([...bytes.keys()], [...texts.keys()]);
  for (const [id, text] of texts) assert.deepEqual([...bytes.get(id)!], [...new TextEncoder().encode(text)], id);
});
