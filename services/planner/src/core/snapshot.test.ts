import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { canonicalJson } from '@portolan/desired-state';
import * as f from '../testing/fixtures.ts';
import { bigWorld } from '../testing/big-world.ts';
import { eventsOf, historyArb, PROPERTY_FLEET } from '../testing/world-arbitrary.ts';
import {
  buildTrie,
  keyHashOf,
  removeFromTrie,
  removeOwned,
  sealTrie,
  upsertOwned,
  upsertTrie,
  type TrieNode,
} from '@portolan/snapshot';
import { LAYOUT_1, LAYOUT_2 } from '@portolan/snapshot';
import { joinSnapshot, pieceReferences, splitSnapshot } from '@portolan/snapshot';
import { SnapshotCorruptError, SnapshotPieceMissingError } from '@portolan/snapshot';
import { Planner } from './planner.ts';
import { PieceSink, pieceIdOf } from '@portolan/snapshot';

const UPDATES = {
  persistent: { upsert: upsertTrie, remove: removeFromTrie },
  'in place (one owner)': { upsert: upsertOwned, remove: removeOwned },
};

for (const [name, { upsert, remove }] of Object.entries(UPDATES))
  for (const { version, trie: shape } of [LAYOUT_1, LAYOUT_2]) {
    test(`property: the hash trie's pieces depend only on its final entries, not on the insert/delete history (${name} updates, layout ${version}'s shape)`, () => {
      fc.assert(
        // Item ids are real piece ids (43 characters) or short ones: in-place re-seals patch the first kind only.
        fc.property(
          fc.array(
            fc.tuple(fc.integer({ min: 0, max: 60 }), fc.option(fc.integer({ min: 0, max: 4 }), { nil: null })),
            { maxLength: 200 },
          ),
          fc.boolean(),
          (ops, realIds) => {
            let root: TrieNode | null = null;
            const final = new Map<string, string>();
            for (const [k, v] of ops) {
              const sortKey = `k${k}`;
              if (v === null) {
                root = remove(root, sortKey, keyHashOf(sortKey), shape);
                final.delete(sortKey);
              } else {
                const itemId = realIds ? pieceIdOf(`"v${v}"`) : `v${v}`;
                root = upsert(root, { sortKey, keyHash: keyHashOf(sortKey), itemId }, shape);
                final.set(sortKey, itemId);
              }
              if (k % 3 === 0) sealTrie(root, new PieceSink());
            }
            const fresh = buildTrie(
              [...final].map(([sortKey, itemId]) => ({ sortKey, keyHash: keyHashOf(sortKey), itemId })),
              shape,
            );
            assert.equal(sealTrie(root, new PieceSink()), sealTrie(fresh, new PieceSink()));
          },
        ),
        { numRuns: 300 },
      );
    });
  }

test('property: split then join gives back the same desired state, for every appliance of random worlds', () => {
  fc.assert(
    fc.property(historyArb, (steps) => {
      const p = new Planner(PROPERTY_FLEET);
      for (const e of eventsOf(steps)) p.applyEvent(e);
      p.planDirty();
      for (const a of p.appliances) {
        const d = p.desiredState(a)!;
        const { root, pieces } = splitSnapshot(d);
        assert.equal(root, p.rootOf(a));
        assert.equal(canonicalJson(joinSnapshot(root, (id) => pieces.get(id))), canonicalJson(d));
        for (const bytes of pieces.values()) {
          const text = new TextDecoder().decode(bytes);
          assert.equal(
            canonicalJson(JSON.parse(text)),
            text,
            'every piece is canonical JSON (hand-written encoders included)',
          );
        }
      }
    }),
    { numRuns: 60 },
  );
});

for (const services of [300, 3000]) {
  test(`structural sharing: a one-endpoint change at ${services} Services stores at most 4 KB (one pool, its trie paths, the root)`, () => {
    const p = bigWorld(services);
    const eps: f.Ep[] = Array.from({ length: 10 }, (_, j) => [`10.0.7.${j + 1}`, j !== 3]);
    p.applyEvent({
      cluster: 'c1',
      kind: 'EndpointSlice',
      type: 'MODIFIED',
      object: f.slice('svc-7-a', 'svc-7', 'http', 8080, eps),
    });
    const [plan] = p.planDirty();
    const bytes = [...plan!.pieces.values()].reduce((n, b) => n + b.length, 0);
    assert.ok(bytes <= 4096, `${bytes} bytes in ${plan!.pieces.size} pieces`);
    const texts = [...plan!.pieces.values()].map((b) => new TextDecoder().decode(b));
    assert.equal(
      texts.filter((t) => t.includes('"name":"default~svc-7~http"')).length,
      1,
      'exactly one pool piece rewritten',
    );
    assert.ok(!texts.some((t) => t.includes('"routes"')), 'no virtual service rewritten');
  });
}

test('identical input never creates a new snapshot; a change and its undo come back to the same hash', () => {
  const p = bigWorld(20);
  const before = p.rootOf('lb');
  const slice = (ready: boolean) => f.slice('svc-3-a', 'svc-3', 'http', 8080, [['10.0.3.1', ready]]);
  p.applyEvent({ cluster: 'c1', kind: 'EndpointSlice', type: 'MODIFIED', object: slice(false) });
  const changed = p.planDirty();
  assert.equal(changed.length, 1);
  assert.notEqual(changed[0]!.root, before);
  p.applyEvent({ cluster: 'c1', kind: 'EndpointSlice', type: 'MODIFIED', object: slice(true) });
  const undone = p.planDirty();
  assert.equal(undone.length, 1);
  p.applyEvent({
    cluster: 'c1',
    kind: 'EndpointSlice',
    type: 'MODIFIED',
    object: f.slice(
      'svc-3-a',
      'svc-3',
      'http',
      8080,
      Array.from({ length: 10 }, (_, j): f.Ep => [`10.0.3.${j + 1}`]),
    ),
  });
  assert.equal(p.planDirty()[0]!.root, before);
  assert.deepEqual(p.planDirty(), []);
});

test('join verifies every piece: a tampered or missing piece is an error naming it, never a silent wrong state', () => {
  const p = bigWorld(5);
  const { root, pieces } = splitSnapshot(p.desiredState('lb')!);
  const victim = [...pieces.keys()].find((id) => id !== root)!;
  const tampered = new Map(pieces);
  tampered.set(victim, new TextEncoder().encode(`${new TextDecoder().decode(pieces.get(victim)!)} `));
  assert.throws(
    () => joinSnapshot(root, (id) => tampered.get(id)),
    (e: unknown) => e instanceof SnapshotCorruptError && e.pieceId === victim && e.code === 'SNAPSHOT_CORRUPT',
  );
  const missing = new Map(pieces);
  missing.delete(victim);
  assert.throws(
    () => joinSnapshot(root, (id) => missing.get(id)),
    (e: unknown) => e instanceof SnapshotPieceMissingError && e.pieceId === victim,
  );
});

test('pieceReferences lets a store fetch a snapshot level by level: the walk from the root reaches every piece', () => {
  const p = bigWorld(40);
  const { root, pieces } = splitSnapshot(p.desiredState('lb')!);
  const seen = new Set<string>();
  let level = [root];
  while (level.length > 0) {
    const next: string[] = [];
    for (const id of level) {
      if (seen.has(id)) continue;
      seen.add(id);
      next.push(...pieceReferences(new TextDecoder().decode(pieces.get(id)!)));
    }
    level = next;
  }
  assert.equal(seen.size, pieces.size);
});
