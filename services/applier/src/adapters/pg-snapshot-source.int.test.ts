import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalizeDesiredState } from '@portolan/snapshot';
import { testStack } from '@portolan/infra';
import { createTestDatabase, type TestDatabase } from '@portolan/store';
import { PgSnapshotSource } from './pg-snapshot-source.ts';
import { writeSnapshot } from '../testing/snapshot-writer.ts';
import { desiredState, pool } from '../testing/desired-fixtures.ts';
import { SnapshotLoadError } from '../errors.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase((await testStack()).postgresUrl);
});
after(async () => {
  await database.drop();
});

test("snapshots written as the planner's pieces decode to the planned state; a one-endpoint change fetches a handful of pieces", async () => {
  const pools = Array.from({ length: 60 }, (_, i) => pool(`p${String(i).padStart(2, '0')}`, [i + 1, i + 100]));
  const s1 = desiredState('edge-src', pools);
  const id1 = await writeSnapshot(database.db, s1);
  const source = new PgSnapshotSource(database.db);
  assert.deepEqual(await source.head('edge-src'), {
    id: id1,
    hash: (await source.head('edge-src'))!.hash,
    held: false,
    holdReason: null,
  });
  const loaded = await source.get(id1);
  assert.deepEqual(loaded.desired, canonicalizeDesiredState(s1));
  const full = source.fetchedPieces;
  assert.ok(full > 60, `a first load fetches every piece (${full})`);
  const s2 = desiredState(
    'edge-src',
    pools.map((p, i) => (i === 7 ? pool(p.name, [8, 107, 200]) : p)),
  );
  const id2 = await writeSnapshot(database.db, s2, { held: true, holdReason: 'test' });
  const again = await source.get(id2);
  assert.deepEqual(again.desired, canonicalizeDesiredState(s2));
  assert.equal(again.held, true);
  assert.ok(source.fetchedPieces - full <= 12, `a one-endpoint change fetched ${source.fetchedPieces - full} pieces`);
  await assert.rejects(source.get('999999'), SnapshotLoadError);
});

test('an announced head newer than any answered spares the head query; an older, held or fresh one goes to Postgres', async () => {
  const pools = [pool('a', [1, 2])];
  const id1 = await writeSnapshot(database.db, desiredState('edge-ann', pools));
  const source = new PgSnapshotSource(database.db);
  assert.equal((await source.head('edge-ann'))?.id, id1);
  assert.equal(source.headQueries, 1);
  const s2 = desiredState('edge-ann', [pool('a', [1, 3])]);
  const id2 = await writeSnapshot(database.db, s2);
  const hash2 = (await source.head('edge-ann', { fresh: true }))!.hash;
  assert.equal(source.headQueries, 2);
  const id3 = await writeSnapshot(database.db, desiredState('edge-ann', [pool('a', [1, 4])]));
  const hash3 = (await new PgSnapshotSource(database.db).head('edge-ann'))!.hash;
  source.offerHead({ id: id3, hash: hash3, held: false, createdAt: new Date() });
  assert.deepEqual(await source.head('edge-ann'), { id: id3, hash: hash3, held: false, holdReason: null });
  assert.equal(source.headQueries, 2, 'answered from the announcement');
  assert.equal((await source.get(id3)).hash, hash3);
  // An announcement older than what was answered (a late message) is not believed.
  source.offerHead({ id: id2, hash: hash2, held: false, createdAt: new Date() });
  assert.equal((await source.head('edge-ann'))?.id, id3);
  assert.equal(source.headQueries, 3);
  // A held one needs the newest unheld id: the query answers.
  const id4 = await writeSnapshot(database.db, desiredState('edge-ann', [pool('a', [1, 5])]), {
    held: true,
    holdReason: 'test',
  });
  source.offerHead({ id: id4, hash: 'x', held: true, createdAt: new Date() });
  const held = await source.head('edge-ann');
  assert.equal(held?.id, id4);
  assert.equal(held?.held, true);
  assert.equal(source.headQueries, 4);
});

test('a snapshot with more pieces on one trie level than Postgres takes bind parameters (10k pools × 10 endpoints, as 10k Services) loads', async () => {
  // Every pool's members sit at the same depth, so one prefetch level holds about 84k pieces.
  const pools = Array.from({ length: 10_000 }, (_, i) =>
    pool(
      `p${i}`,
      Array.from({ length: 10 }, (_, j) => i * 10 + j),
    ),
  );
  const id = await writeSnapshot(database.db, desiredState('edge-big', pools));
  const loaded = await new PgSnapshotSource(database.db).get(id);
  assert.equal(
    loaded.desired.pools.reduce((n, p) => n + p.members.length, 0),
    100_000,
  );
});
