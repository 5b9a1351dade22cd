// The planner service when things go wrong: a layout upgrade, a kill between commit and ack, two planners racing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from '@portolan/telemetry';
import { KubeEventType } from '@portolan/proto';
import { PlannerService } from './planner-service.ts';
import { replayVerify } from './replay-verify.ts';
import { joinSnapshot } from '@portolan/snapshot';
import { CURRENT_LAYOUT, LAYOUT_1 } from '@portolan/snapshot';
import {
  config,
  harness,
  hash,
  kubeObject,
  publish,
  runUntil,
  service,
  silent,
  slice,
  teardown,
  world,
  WORLD_MESSAGES,
} from './testing/planner-service-harness.ts';

test('an archive spanning a snapshot-layout upgrade: the new planner re-encodes the head once, and replay verifies both layouts', async () => {
  const h = await harness();
  try {
    await world(h.bus, ['10.0.0.1', '10.0.0.2']);
    const old = new PlannerService({
      store: h.store,
      bus: h.bus,
      config,
      fleetConfigHash: hash,
      log: silent,
      metrics: null,
      layout: LAYOUT_1,
    });
    await old.recover();
    await runUntil(h, old, WORLD_MESSAGES);
    const upgraded = service(h);
    await upgraded.recover();
    await publish(h.bus, 'EndpointSlice', slice(['10.0.0.1', '10.0.0.2', '10.0.0.3']));
    await runUntil(h, upgraded, WORLD_MESSAGES + 1);
    const chain = await h.tdb.db
      .selectFrom('snapshots')
      .innerJoin('snapshot_pieces', 'snapshot_pieces.hash', 'snapshots.content_hash')
      .select(['snapshots.id', 'snapshot_pieces.body'])
      .orderBy('snapshots.id')
      .execute();
    const layouts = chain.map((r) => (JSON.parse(Buffer.from(r.body).toString('utf8')) as { layout: number }).layout);
    assert.deepEqual(
      layouts,
      [LAYOUT_1.version, CURRENT_LAYOUT.version, CURRENT_LAYOUT.version],
      'layout 1, the same state re-encoded on upgrade, then the change',
    );
    const pieces = new Map(
      (await h.tdb.db.selectFrom('snapshot_pieces').select(['hash', 'body']).execute()).map((p) => [p.hash, p.body]),
    );
    const hashes = (await h.tdb.db.selectFrom('snapshots').select('content_hash').orderBy('id').execute()).map(
      (r) => r.content_hash,
    );
    assert.deepEqual(
      joinSnapshot(hashes[1]!, (id) => pieces.get(id)),
      joinSnapshot(hashes[0]!, (id) => pieces.get(id)),
      'the re-encoded snapshot holds the same desired state',
    );
    const report = await replayVerify(h.store, config);
    assert.deepEqual({ verified: report.verified, mismatches: report.mismatches }, { verified: 3, mismatches: [] });
  } finally {
    await teardown(h);
  }
});

test('a planner killed between commit and ack: the redelivered batch creates nothing new and the position only grows', async () => {
  const h = await harness();
  try {
    await world(h.bus, ['10.0.0.1']);
    const first = service(h);
    await first.recover();
    // Commit, then "die" before acking: throw after handleBatch so the bus naks instead of acking.
    const stop = new AbortController();
    await h.bus.consumeBatches(
      'planner',
      async (batch) => {
        await first.handleBatch(batch);
        if (first.committedPosition >= WORLD_MESSAGES) {
          stop.abort();
          throw new Error('crash before ack');
        }
      },
      { signal: stop.signal },
    );
    const snapshotsBefore = await h.tdb.db.selectFrom('snapshots').select('id').execute();
    assert.ok(snapshotsBefore.length > 0, 'the crashed planner had committed its snapshot');
    const second = service(h);
    const { replayed } = await second.recover();
    assert.equal(replayed, WORLD_MESSAGES, 'the restarted planner rebuilt its world from the archive');
    await publish(
      h.bus,
      'Service',
      kubeObject('Service', 'shop', 'other', { spec: { ports: [{ port: 80 }] } }),
      KubeEventType.ADDED,
    );
    await runUntil(h, second, WORLD_MESSAGES + 1);
    const snapshotsAfter = await h.tdb.db.selectFrom('snapshots').select('id').execute();
    assert.deepEqual(snapshotsAfter, snapshotsBefore, 'redelivery and an unrelated Service change no snapshot');
    assert.equal(await h.store.position(), WORLD_MESSAGES + 1);
  } finally {
    await teardown(h);
  }
});

test('two planners racing on one durable consumer keep the chain linear and replay reproduces every hash', async () => {
  const h = await harness();
  try {
    await world(h.bus, ['10.0.0.1']);
    const a = service(h);
    const b = service(h);
    await a.recover();
    await b.recover();
    for (let i = 2; i <= 12; i++)
      await publish(h.bus, 'EndpointSlice', slice(Array.from({ length: i }, (_, j) => `10.0.1.${j + 1}`)));
    const last = WORLD_MESSAGES + 11;
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), 30_000);
    const run = (s: PlannerService) =>
      h.bus.consumeBatches(
        'planner',
        async (batch) => {
          await new Promise((r) => setTimeout(r, Math.random() * 20));
          await s.handleBatch(batch);
          if ((await h.store.position()) >= last) stop.abort();
        },
        { signal: stop.signal, maxBatch: 3 },
      );
    await Promise.all([run(a), run(b)]);
    clearTimeout(timer);
    assert.equal(await h.store.position(), last);
    const chain = await h.tdb.db.selectFrom('snapshots').select(['id', 'parent_id']).orderBy('id').execute();
    chain.forEach((r, i) =>
      assert.equal(r.parent_id, i === 0 ? null : chain[i - 1]!.id, 'each parent is the previous head'),
    );
    const report = await replayVerify(h.store, config);
    assert.deepEqual(report.mismatches, []);
    assert.equal(report.verified, chain.length);
  } finally {
    await teardown(h);
  }
});

test('two planners taking turns: after its first conflict each folds what the other committed instead of rebuilding', async () => {
  const h = await harness();
  try {
    await world(h.bus, ['10.0.0.1']);
    const lines: string[] = [];
    const destination = new Writable({
      write: (chunk, _e, done) => {
        lines.push(String(chunk));
        done();
      },
    });
    const log = createLogger('test', { destination });
    const make = (): PlannerService =>
      new PlannerService({ store: h.store, bus: h.bus, config, fleetConfigHash: hash, log, metrics: null });
    const [a, b] = [make(), make()];
    await a.recover();
    await b.recover();
    await runUntil(h, a, WORLD_MESSAGES);
    let seq = WORLD_MESSAGES;
    for (let i = 2; i <= 9; i++) {
      await publish(h.bus, 'EndpointSlice', slice(Array.from({ length: i }, (_, j) => `10.0.1.${j + 1}`)));
      seq += 1;
      await runUntil(h, i % 2 === 0 ? b : a, seq);
    }
    const rebuilds = lines.filter((l) => l.includes('another writer committed first')).length;
    assert.equal(rebuilds, 2, 'one conflict for each planner, then each batch lands on what the other committed');
    const chain = await h.tdb.db.selectFrom('snapshots').select(['id', 'parent_id']).orderBy('id').execute();
    chain.forEach((r, i) => assert.equal(r.parent_id, i === 0 ? null : chain[i - 1]!.id));
    assert.deepEqual((await replayVerify(h.store, config)).mismatches, []);
    assert.equal((await make().recover()).snapshots, 0, 'the head is what a fresh planner plans from the archive');
  } finally {
    await teardown(h);
  }
});
