import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, pinHoldReason, type TestDatabase } from '@portolan/store';
import { testStack } from '@portolan/infra';
import {
  PgPlannerStore,
  HeadMovedError,
  type ArchivedEvent,
  type CommittedSnapshot,
  type NewSnapshot,
} from './pg-planner-store.ts';

const enc = new TextEncoder();
const event = (seq: number): ArchivedEvent => ({
  seq,
  subject: 'kube.dev.ingress',
  msgId: `ev:${seq}`,
  cluster: 'dev',
  kind: 'Ingress',
  objectKey: `shop/web${seq}`,
  eventType: 'ADDED',
  payload: enc.encode(`p${seq}`),
  receivedAt: new Date(1_700_000_000_000 + seq),
  traceId: null,
});
const snapshot = (
  hash: string,
  parentId: string | null,
  seq: number,
  pieces: Record<string, string> = { [`root-${hash}`]: `{"root":"${hash}"}` },
): NewSnapshot => ({
  appliance: 'edge',
  contentHash: hash,
  rootHash: Object.keys(pieces)[0]!,
  pieces: new Map(Object.entries(pieces).map(([k, v]) => [k, enc.encode(v)])),
  parentId,
  lastEventSeq: seq,
  fleetConfigHash: 'cfg',
  plannerVersion: '1',
  held: false,
  holdReason: null,
  traceId: null,
});

/** The ids a commit returns. */
const ids = async (committed: Promise<CommittedSnapshot[]>): Promise<string[]> => (await committed).map((c) => c.id);

async function withStore(fn: (store: PgPlannerStore, tdb: TestDatabase) => Promise<void>): Promise<void> {
  const tdb = await createTestDatabase((await testStack()).postgresUrl);
  try {
    await fn(new PgPlannerStore(tdb.db), tdb);
  } finally {
    await tdb.drop();
  }
}

test('a batch commits events, pieces, the snapshot, its head and the position together', () =>
  withStore(async (store) => {
    const [id] = await ids(
      store.commit({
        fromPosition: 0,
        toPosition: 2,
        events: [event(1), event(2)],
        snapshots: [snapshot('h1', null, 2)],
      }),
    );
    assert.equal(await store.position(), 2);
    assert.deepEqual(
      await store.heads(),
      new Map([['edge', { appliance: 'edge', snapshotId: id, contentHash: 'h1' }]]),
    );
    assert.deepEqual(
      [...(await collect(store.archive(0)))].map((e) => e.seq),
      [1, 2],
    );
    assert.equal(new TextDecoder().decode((await store.piece('root-h1'))!), '{"root":"h1"}');
  }));

test('a stale position or head writes nothing at all (HeadMovedError), so events, snapshots and position stay consistent', () =>
  withStore(async (store, tdb) => {
    const [first] = await ids(
      store.commit({ fromPosition: 0, toPosition: 1, events: [event(1)], snapshots: [snapshot('h1', null, 1)] }),
    );
    // Another planner already moved the position: its competitor's batch must leave no trace.
    await assert.rejects(
      store.commit({ fromPosition: 0, toPosition: 2, events: [event(2)], snapshots: [snapshot('h2', first!, 2)] }),
      HeadMovedError,
    );
    // A batch whose snapshot extends a parent that is no longer the head also writes nothing, events included.
    await store.commit({ fromPosition: 1, toPosition: 2, events: [event(2)], snapshots: [snapshot('h2', first!, 2)] });
    await assert.rejects(
      store.commit({ fromPosition: 2, toPosition: 3, events: [event(3)], snapshots: [snapshot('h3', first!, 3)] }),
      HeadMovedError,
    );
    // A stale position with the right head (a planner that lost the consumer race) writes nothing either.
    const head = (await store.heads()).get('edge')!.snapshotId;
    await assert.rejects(
      store.commit({ fromPosition: 1, toPosition: 3, events: [event(3)], snapshots: [snapshot('h3', head, 3)] }),
      HeadMovedError,
    );
    assert.equal(await store.position(), 2);
    assert.deepEqual(
      (await collect(store.archive(0))).map((e) => e.seq),
      [1, 2],
    );
    const chain = await tdb.db.selectFrom('snapshots').select(['content_hash', 'parent_id']).orderBy('id').execute();
    assert.deepEqual(
      chain.map((c) => c.content_hash),
      ['h1', 'h2'],
    );
  }));

test('two planners racing over the same events keep one linear chain with no lost update', () =>
  withStore(async (store, tdb) => {
    const other = new PgPlannerStore(tdb.db);
    let head: string | null = null;
    let position = 0;
    for (let round = 1; round <= 20; round++) {
      const attempt = (s: PgPlannerStore, tag: string) =>
        s.commit({
          fromPosition: position,
          toPosition: round,
          events: [event(round)],
          snapshots: [snapshot(`h${round}-${tag}`, head, round)],
        });
      const results = await Promise.allSettled([attempt(store, 'a'), attempt(other, 'b')]);
      const won = results.filter((r) => r.status === 'fulfilled') as PromiseFulfilledResult<CommittedSnapshot[]>[];
      assert.equal(won.length, 1, `round ${round}: exactly one writer wins`);
      for (const r of results) if (r.status === 'rejected') assert.ok(r.reason instanceof HeadMovedError);
      head = won[0]!.value[0]!.id;
      position = round;
    }
    const rows = await tdb.db.selectFrom('snapshots').select(['id', 'parent_id']).orderBy('id').execute();
    assert.equal(rows.length, 20);
    rows.forEach((r, i) =>
      assert.equal(r.parent_id, i === 0 ? null : rows[i - 1]!.id, 'each parent is the previous head'),
    );
  }));

test('identical pieces are stored once and shared between snapshots', () =>
  withStore(async (store, tdb) => {
    const shared = { 'root-a': '{"pools":["p1"]}', p1: '{"members":[1,2,3]}' };
    const [a] = await ids(
      store.commit({ fromPosition: 0, toPosition: 1, events: [event(1)], snapshots: [snapshot('a', null, 1, shared)] }),
    );
    await store.commit({
      fromPosition: 1,
      toPosition: 2,
      events: [event(2)],
      snapshots: [snapshot('b', a!, 2, { 'root-b': '{"pools":["p1"],"v":2}', p1: '{"members":[1,2,3]}' })],
    });
    const pieces = await tdb.db.selectFrom('snapshot_pieces').select('hash').orderBy('hash').execute();
    assert.deepEqual(
      pieces.map((p) => p.hash),
      ['p1', 'root-a', 'root-b'],
    );
  }));

test('the one-call commit (one snapshot extending a head) archives every event field and piece byte exactly', () =>
  withStore(async (store, tdb) => {
    const [root] = await ids(
      store.commit({ fromPosition: 0, toPosition: 1, events: [event(1)], snapshots: [snapshot('h1', null, 1)] }),
    );
    // Every byte value, quotes, backslashes, braces and commas (array-literal syntax), a NUL, a null and a set trace id.
    const binary = Uint8Array.from({ length: 256 }, (_, i) => i);
    const odd = {
      ...event(2),
      subject: 'kube.dev.{a,"b"}\\c',
      objectKey: 'ns/"x",{y}',
      payload: binary,
      receivedAt: new Date(1_700_000_000_123),
      traceId: 'trace-2',
    };
    const pieces = { 'root-h2': '{"root":"h2","s":"\\u0000 \\" ,{}"}', blob: 'x'.repeat(5000) };
    const [second] = await store.commit({
      fromPosition: 1,
      toPosition: 3,
      events: [odd, event(3)],
      snapshots: [snapshot('h2', root!, 3, pieces)],
    });
    assert.deepEqual(second, { id: second!.id, held: false, holdReason: null });
    const archived = await collect(store.archive(0));
    assert.deepEqual(
      archived.map((e) => ({ ...e, payload: Buffer.from(e.payload) })),
      [event(1), odd, event(3)].map((e) => ({ ...e, payload: Buffer.from(e.payload) })),
    );
    // What the fold reads (payloads as base64 on the wire) is the same bytes, whole pages or one row at a time.
    for (const pageSize of [1, 2, 4000]) {
      const read: [number, string, Buffer][] = [];
      for await (const page of store.archivedPages(0, Number.MAX_SAFE_INTEGER, pageSize))
        for (const e of page) read.push([e.seq, e.subject, Buffer.from(e.payload)]);
      assert.deepEqual(
        read,
        archived.map((e) => [e.seq, e.subject, Buffer.from(e.payload)]),
      );
    }
    for (const [hash, text] of Object.entries(pieces))
      assert.equal(new TextDecoder().decode((await store.piece(hash))!), text);
    const row = await tdb.db.selectFrom('snapshots').selectAll().where('id', '=', second!.id).executeTakeFirstOrThrow();
    assert.deepEqual(
      [row.parent_id, row.content_hash, row.root_hash, String(row.last_event_seq), row.held, row.origin],
      [root, 'h2', 'root-h2', '3', false, 'plan'],
    );
    assert.equal(await store.position(), 3);
    assert.equal((await store.heads()).get('edge')!.snapshotId, second!.id);
  }));

test('snapshots committed while a rollback pin exists are held with the reason resume recognises, on both commit paths', () =>
  withStore(async (store, tdb) => {
    const [first] = await ids(
      store.commit({ fromPosition: 0, toPosition: 1, events: [event(1)], snapshots: [snapshot('h1', null, 1)] }),
    );
    await tdb.db
      .insertInto('snapshot_pins')
      .values({ appliance: 'edge', snapshot_id: first!, reason: 'incident 7' })
      .execute();
    const reason = pinHoldReason({ snapshotId: first! });
    // One snapshot extending the head: the one-call path.
    const [oneCall] = await store.commit({
      fromPosition: 1,
      toPosition: 2,
      events: [event(2)],
      snapshots: [snapshot('h2', first!, 2)],
    });
    assert.deepEqual([oneCall!.held, oneCall!.holdReason], [true, reason]);
    // No events (a re-plan after recovery): the transaction path.
    const [general] = await store.commit({
      fromPosition: 2,
      toPosition: 2,
      events: [],
      snapshots: [snapshot('h3', oneCall!.id, 2)],
    });
    assert.deepEqual([general!.held, general!.holdReason], [true, reason]);
    await tdb.db.deleteFrom('snapshot_pins').execute();
    const [after] = await store.commit({
      fromPosition: 2,
      toPosition: 3,
      events: [event(3)],
      snapshots: [snapshot('h4', general!.id, 3)],
    });
    assert.deepEqual([after!.held, after!.holdReason], [false, null]);
    const rows = await tdb.db
      .selectFrom('snapshots')
      .select(['content_hash', 'held', 'hold_reason'])
      .orderBy('id')
      .execute();
    assert.deepEqual(
      rows.map((r) => [r.content_hash, r.held, r.hold_reason]),
      [
        ['h1', false, null],
        ['h2', true, reason],
        ['h3', true, reason],
        ['h4', false, null],
      ],
    );
  }));

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}
