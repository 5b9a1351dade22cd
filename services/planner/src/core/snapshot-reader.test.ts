import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { canonicalJson } from '@portolan/desired-state';
import * as f from '../testing/fixtures.ts';
import { bigWorld } from '../testing/big-world.ts';
import { eventsOf, historyArb, PROPERTY_FLEET } from '../testing/world-arbitrary.ts';
import { joinSnapshot, splitSnapshot } from '@portolan/snapshot';
import { SnapshotCorruptError, SnapshotPieceMissingError } from '@portolan/snapshot';
import { Planner } from './planner.ts';
import { SnapshotReader } from '@portolan/snapshot';
import { LAYOUT_1, LAYOUT_2 } from '@portolan/snapshot';

/** Fetches like a store: `missing` answers are fetched in rounds; returns the rounds and pieces fetched. */
function readInRounds(
  reader: SnapshotReader,
  root: string,
  store: ReadonlyMap<string, Uint8Array>,
  held: Map<string, Uint8Array>,
) {
  let rounds = 0;
  let fetched = 0;
  for (
    let ids = reader.missing(root, (id) => held.get(id));
    ids.length > 0;
    ids = reader.missing(root, (id) => held.get(id))
  ) {
    rounds++;
    for (const id of ids) {
      const body = store.get(id);
      if (body !== undefined) held.set(id, body);
      fetched++;
    }
    assert.ok(rounds < 64, 'the fetch rounds end');
  }
  return { desired: reader.read(root, (id) => held.get(id)), rounds, fetched };
}

test('property: reading a sequence of snapshots incrementally gives exactly what joinSnapshot gives for each, across layouts 1 and 2', () => {
  fc.assert(
    fc.property(historyArb, (steps) => {
      const p = new Planner(PROPERTY_FLEET);
      const readers = new Map<string, SnapshotReader>();
      const store = new Map<string, Uint8Array>();
      const events = eventsOf(steps);
      events.forEach((e, i) => {
        p.applyEvent(e);
        if (i % 3 !== 2 && i !== events.length - 1) return;
        p.planDirty();
        for (const a of p.appliances) {
          // A reader may meet either layout after the other (an archive written across a planner upgrade).
          const { root, pieces } = splitSnapshot(p.desiredState(a)!, i % 2 === 0 ? LAYOUT_1 : LAYOUT_2);
          for (const [id, body] of pieces) store.set(id, body);
          const reader = readers.get(a) ?? new SnapshotReader();
          readers.set(a, reader);
          // Each reader only ever sees pieces it asked for, like the applier's store adapter.
          const { desired } = readInRounds(reader, root, store, new Map());
          assert.equal(canonicalJson(desired), canonicalJson(joinSnapshot(root, (id) => store.get(id))));
        }
      });
    }),
    { numRuns: 60 },
  );
});

test('a one-endpoint change at 2,000 Services fetches a handful of pieces and keeps every other object identical', () => {
  const p = bigWorld(2000);
  const store = new Map<string, Uint8Array>();
  const add = () => {
    const { root, pieces } = splitSnapshot(p.desiredState('lb')!);
    for (const [id, body] of pieces) store.set(id, body);
    return root;
  };
  const reader = new SnapshotReader();
  const held = new Map<string, Uint8Array>();
  const first = readInRounds(reader, add(), store, held);
  assert.equal(first.fetched, store.size, 'a cold read fetches the whole snapshot, each piece once');
  assert.ok(first.rounds < 30, `level by level: ${first.rounds} rounds`);

  const eps: f.Ep[] = Array.from({ length: 10 }, (_, j) => [j === 0 ? '10.99.0.1' : `10.0.7.${j + 1}`]);
  p.applyEvent({
    cluster: 'c1',
    kind: 'EndpointSlice',
    type: 'MODIFIED',
    object: f.slice('svc-7-a', 'svc-7', 'http', 8080, eps),
  });
  p.planDirty();
  const root = add();
  const next = readInRounds(reader, root, store, held);
  assert.equal(canonicalJson(next.desired), canonicalJson(joinSnapshot(root, (id) => store.get(id))));
  assert.ok(next.fetched <= 20, `${next.fetched} pieces fetched for one endpoint`);
  const changed = next.desired.pools.filter((pool, i) => pool !== first.desired.pools[i]);
  assert.deepEqual(
    changed.map((pool) => pool.name),
    ['default~svc-7~http'],
    'only the changed pool is a new object',
  );
  const before = new Set(first.desired.pools.find((pool) => pool.name === 'default~svc-7~http')!.members);
  assert.equal(
    changed[0]!.members.filter((m) => before.has(m)).length,
    9,
    'its nine unchanged members keep their identity',
  );
  assert.equal(next.desired.virtualServices, first.desired.virtualServices, 'unchanged collections are the same array');
  assert.equal(next.desired.certificates, first.desired.certificates);
});

test('reading back an older snapshot and forward again stays exact (rollback, replay)', () => {
  const p = bigWorld(50);
  const store = new Map<string, Uint8Array>();
  const roots: string[] = [];
  for (let gen = 0; gen < 6; gen++) {
    const eps: f.Ep[] = Array.from({ length: 10 - gen }, (_, j) => [`10.0.${gen}.${j + 1}`, j % 2 === 0]);
    p.applyEvent({
      cluster: 'c1',
      kind: 'EndpointSlice',
      type: 'MODIFIED',
      object: f.slice(`svc-${gen}-a`, `svc-${gen}`, 'http', 8080, eps),
    });
    if (gen === 3) p.applyEvent({ ...f.added('c1', f.ingress({ name: 'ing-9', rules: [] }))[0]!, type: 'DELETED' });
    p.planDirty();
    const { root, pieces } = splitSnapshot(p.desiredState('lb')!);
    for (const [id, body] of pieces) store.set(id, body);
    roots.push(root);
  }
  const reader = new SnapshotReader();
  for (const root of [roots[5]!, roots[0]!, roots[3]!, roots[5]!, roots[1]!]) {
    assert.equal(
      canonicalJson(reader.read(root, (id) => store.get(id))),
      canonicalJson(joinSnapshot(root, (id) => store.get(id))),
    );
  }
});

test('a tampered or missing piece is an error naming it, and the reader still reads the next good snapshot', () => {
  const p = bigWorld(5);
  const { root, pieces } = splitSnapshot(p.desiredState('lb')!);
  const victim = [...pieces.keys()].find((id) => id !== root)!;
  const tampered = new Map(pieces);
  tampered.set(victim, new TextEncoder().encode(`${new TextDecoder().decode(pieces.get(victim)!)} `));
  const reader = new SnapshotReader();
  assert.throws(
    () => reader.read(root, (id) => tampered.get(id)),
    (e: unknown) => e instanceof SnapshotCorruptError && e.pieceId === victim,
  );
  const missing = new Map(pieces);
  missing.delete(victim);
  assert.throws(
    () => reader.read(root, (id) => missing.get(id)),
    (e: unknown) => e instanceof SnapshotPieceMissingError && e.pieceId === victim,
  );
  assert.equal(canonicalJson(reader.read(root, (id) => pieces.get(id))), canonicalJson(p.desiredState('lb')!));
});
