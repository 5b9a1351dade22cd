import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { canonicalJson, type Pool, type PoolMember } from '@portolan/desired-state';
import { ByteArena, PieceSink, pieceIdOf } from './piece.ts';
import { SnapshotEncoder } from './snapshot-encoder.ts';
import { joinSnapshot } from './snapshot-codec.ts';
import { LAYOUT_1, LAYOUT_2 } from './snapshot-layout.ts';

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
  fc
    .uniqueArray(memberArb, { selector: (m) => `${m.address}|${m.port}|${m.cluster}`, maxLength: 8 })
    .map((ms) =>
      ms.sort((a, b) =>
        a.address !== b.address
          ? a.address < b.address
            ? -1
            : 1
          : a.port - b.port || (a.cluster < b.cluster ? -1 : a.cluster > b.cluster ? 1 : 0),
      ),
    ),
  fc.array(memberArb, { maxLength: 8 }),
);

function pool(name: string, members: readonly PoolMember[]): Pool {
  return {
    name,
    members,
    monitor: null,
    persistence: null,
    tlsToBackend: false,
    customization: null,
    services: [{ cluster: 'c1', kind: 'Service', namespace: 'ns', name: 'web' }],
  };
}

for (const layout of [LAYOUT_1, LAYOUT_2])
  test(`property: after any history of member lists, the incremental encoding equals a fresh one and every piece it needs was emitted (layout ${layout.version})`, () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('p1', 'p2'), membersArb), { minLength: 1, maxLength: 12 }),
        (steps) => {
          const incremental = new SnapshotEncoder('lb', 'haproxy', layout);
          const stored = new Map<string, string>();
          const current = new Map<string, readonly PoolMember[]>();
          for (const [name, members] of steps) {
            incremental.setPool(pool(name, members));
            current.set(name, members);
            const { root, pieces, bytes } = incremental.commit();
            for (const [id, text] of pieces) {
              assert.equal(pieceIdOf(text), id);
              assert.equal(new TextDecoder().decode(bytes.get(id)), text);
              stored.set(id, text);
            }
            const fresh = new SnapshotEncoder('lb', 'haproxy', layout);
            for (const [n, ms] of current) fresh.setPool(pool(n, ms));
            const expected = fresh.commit();
            assert.equal(root, expected.root);
            for (const id of expected.pieces.keys()) assert.ok(stored.has(id), `piece ${id} was never emitted`);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

/** An edit of a member list that keeps the other members as the same objects (how the planner's lists change). */
type MemberEdit = (ms: readonly PoolMember[]) => PoolMember[];
const memberEditArb: fc.Arbitrary<MemberEdit> = fc.oneof(
  fc.tuple(fc.nat(), memberArb).map(
    ([i, m]): MemberEdit =>
      (ms) =>
        ms.map((x, j) => (j === i % Math.max(ms.length, 1) ? m : x)),
  ),
  fc
    .tuple(fc.nat(), memberArb)
    .map(([i, m]): MemberEdit => (ms) => [...ms.slice(0, i % (ms.length + 1)), m, ...ms.slice(i % (ms.length + 1))]),
  fc.nat().map(
    (i): MemberEdit =>
      (ms) =>
        ms.filter((_, j) => j !== i % Math.max(ms.length, 1)),
  ),
  fc.nat().map(
    (i): MemberEdit =>
      (ms) =>
        ms.length === 0 ? [] : [...ms, ms[i % ms.length]!],
  ),
  fc.nat().map((i): MemberEdit => (ms) => [...ms.slice(i % (ms.length + 1)), ...ms.slice(0, i % (ms.length + 1))]),
  membersArb.map((fresh): MemberEdit => () => [...fresh]),
);

for (const layout of [LAYOUT_1, LAYOUT_2])
  test(`property: after edits that keep unchanged members as the same objects, the incremental encoding equals a fresh one (layout ${layout.version})`, () => {
    fc.assert(
      fc.property(membersArb, fc.array(memberEditArb, { maxLength: 12 }), (start, edits) => {
        const incremental = new SnapshotEncoder('lb', 'haproxy', layout);
        let members: readonly PoolMember[] = start;
        incremental.setPool(pool('p1', members));
        for (const edit of [(ms: readonly PoolMember[]) => [...ms], ...edits]) {
          members = edit(members);
          incremental.setPoolMembers('p1', members);
          const fresh = new SnapshotEncoder('lb', 'haproxy', layout);
          fresh.setPool(pool('p1', members));
          assert.equal(incremental.commit().root, fresh.commit().root, JSON.stringify(members));
        }
      }),
      { numRuns: 500 },
    );
  });

for (const layout of [LAYOUT_1, LAYOUT_2])
  test(`a member list with duplicates, as long as the one before, still drops the members it lacks (layout ${layout.version})`, () => {
    const m = (address: string, port: number, cluster = 'c1'): PoolMember => ({
      address,
      port,
      state: 'active',
      weight: 1,
      cluster,
      node: '',
    });
    // Unsorted and with a NUL (the general path), then four copies of one of the four members held.
    const steps = [
      [m('10.0.0.1', 443), m('10.0.0.1', 80), m('a\u0000b', 80), m('10.0.0.1', 80, 'c2')],
      Array.from({ length: 4 }, () => m('10.0.0.1', 80)),
      [],
    ];
    const incremental = new SnapshotEncoder('lb', 'haproxy', layout);
    for (const members of steps) {
      incremental.setPool(pool('p1', members));
      const fresh = new SnapshotEncoder('lb', 'haproxy', layout);
      fresh.setPool(pool('p1', members));
      assert.equal(incremental.commit().root, fresh.commit().root, JSON.stringify(members));
    }
  });

test('layout 2: a pool moves between inline members and a member sub-trie at 32 members, and every step equals a fresh encoding', () => {
  const member = (i: number): PoolMember => ({
    address: `10.0.${i >> 8}.${i & 255}`,
    port: 8080,
    state: i % 5 === 0 ? 'draining' : 'active',
    weight: 1,
    cluster: 'c1',
    node: '',
  });
  const incremental = new SnapshotEncoder('lb', 'haproxy', LAYOUT_2);
  const stored = new Map<string, string>();
  let inline = 0;
  for (const count of [30, 32, 33, 31, 40, 10, 0, 33, 32]) {
    const members = Array.from({ length: count }, (_, i) => member(i * 7 + count));
    incremental.setPool(pool('p1', members));
    incremental.setPool(pool('p2', members.slice(0, 3)));
    const { root, pieces } = incremental.commit();
    for (const [id, text] of pieces) stored.set(id, text);
    const fresh = new SnapshotEncoder('lb', 'haproxy', LAYOUT_2);
    fresh.setPool(pool('p1', members));
    fresh.setPool(pool('p2', members.slice(0, 3)));
    assert.equal(root, fresh.commit().root, `${count} members`);
    const joined = joinSnapshot(root, (id) => stored.get(id));
    assert.deepEqual(
      joined.pools.find((p) => p.name === 'p1')!.members.map((m) => m.address),
      members.map((m) => m.address).sort(),
    );
    const p1 = [...pieces.values()]
      .map((t) => JSON.parse(t) as { name?: string; members?: unknown })
      .find((v) => v.name === 'p1');
    if (p1 !== undefined) {
      assert.equal(Array.isArray(p1.members), count <= 32, `${count} members: inline exactly when at most 32`);
      if (Array.isArray(p1.members)) inline++;
    }
  }
  assert.ok(inline >= 4, 'the inline form was written');
});

test('an inline pool piece is the canonical JSON of its pool, with ASCII and non-ASCII members, after edits', () => {
  const m = (address: string, node: string, weight = 1): PoolMember => ({
    address,
    port: 80,
    state: 'active',
    weight,
    cluster: 'c1',
    node,
  });
  const steps = [
    [m('10.0.0.1', 'n1'), m('10.0.0.2', 'nœud-2'), m('hôte.example', 'n3')],
    [m('10.0.0.1', 'n1', 2), m('10.0.0.2', 'nœud-2'), m('10.0.0.3', '節点')],
    [m('10.0.0.1', 'n1', 2), m('10.0.0.3', 'n3')],
  ];
  const encoder = new SnapshotEncoder('lb', 'haproxy', LAYOUT_2);
  for (const members of steps) {
    encoder.setPool(pool('p1', members));
    const { pieces } = encoder.commit();
    const piece = [...pieces.values()].find((t) => t.startsWith('{"customization"'));
    assert.equal(piece, canonicalJson(pool('p1', members)));
  }
});

test("a piece's bytes are the UTF-8 encoding of its text and its id the hash of its text, ASCII or not", () => {
  const texts = [
    '{"host":"shop.example.com"}',
    '{"message":"Zertifikat für hôte — ✓ 🚀"}',
    '{"n":1}',
    '',
    'x'.repeat(70_000),
  ];
  const sink = new PieceSink(new ByteArena());
  const ids = texts.map((t) => sink.add(t));
  texts.forEach((text, i) => {
    assert.equal(ids[i], pieceIdOf(text));
    assert.equal(sink.texts.get(ids[i]!), text);
    assert.deepEqual([...sink.bytes.get(ids[i]!)!], [...new TextEncoder().encode(text)], `piece ${i}`);
  });
});

test('a piece addressed but not kept is not recorded; bytes already handed out stay intact as more pieces are written', () => {
  const arena = new ByteArena();
  const first = new PieceSink(arena);
  first.add('{"a":1}');
  const held = first.bytes.get(pieceIdOf('{"a":1}'))!;
  const second = new PieceSink(arena);
  second.address('{"b":2}');
  for (let i = 0; i < 5000; i++) second.add(`{"i":${i}}`);
  assert.equal(second.texts.has(pieceIdOf('{"b":2}')), false);
  assert.equal(new TextDecoder().decode(held), '{"a":1}');
});

test('property: an encoder that keeps no pieces commits the same roots and returns no pieces', () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.constantFrom('p1', 'p2', 'p3'), membersArb), { minLength: 1, maxLength: 12 }),
      (steps) => {
        const keeping = new SnapshotEncoder('lb', 'haproxy');
        const hashing = new SnapshotEncoder('lb', 'haproxy', undefined, { keepsPieces: false });
        for (const [name, members] of steps) {
          for (const e of [keeping, hashing]) e.setPool(pool(name, members));
          const kept = keeping.commit();
          const hashed = hashing.commit();
          assert.equal(hashed.root, kept.root);
          assert.equal(hashed.changed, kept.changed);
          assert.equal(hashed.bytes.size, 0);
        }
      },
    ),
  );
});
