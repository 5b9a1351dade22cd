// The planner service on a real stream and database: the sync gate, cold starts, and snapshots from events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PlannerService } from './planner-service.ts';
import { replayVerify } from './replay-verify.ts';
import { joinSnapshot } from '@portolan/snapshot';
import { parseFleetConfig } from '@portolan/fleet-config';
import { KubeEventType } from '@portolan/proto';
import {
  config,
  harness,
  kubeObject,
  LISTED,
  markSynced,
  objects,
  publish,
  runUntil,
  service,
  silent,
  slice,
  teardown,
  world,
  WORLD_MESSAGES,
} from './testing/planner-service-harness.ts';

test('nothing is planned until every kind of the cluster has been listed', async () => {
  const h = await harness();
  try {
    await publish(
      h.bus,
      'IngressClass',
      kubeObject('IngressClass', '', 'portolan', { spec: { controller: 'portolan.dev/ingress-controller' } }),
      KubeEventType.ADDED,
    );
    const s = service(h);
    await s.recover();
    await runUntil(h, s, 1);
    assert.deepEqual(
      await h.tdb.db.selectFrom('snapshots').select('id').execute(),
      [],
      'an unsynced world is never planned',
    );
  } finally {
    await teardown(h);
  }
});

test('a cold start in small batches: the first snapshot of every appliance is whole, whether the first plan or a later one released it', async () => {
  const two = parseFleetConfig(`
version: 1
clusters: [{ name: dev }, { name: prod }]
appliances:
  - { name: edge, driver: haproxy, clusters: [dev], haproxy: { configDir: /tmp/x, masterSocket: /tmp/x/m.sock } }
  - { name: both, driver: haproxy, clusters: [dev, prod], haproxy: { configDir: /tmp/y, masterSocket: /tmp/y/m.sock } }
bus: { url: nats://unused }
store: { url: postgres://unused }
leases: { redisUrl: redis://unused }
secrets: { keyFile: /tmp/key }
`);
  const h = await harness();
  try {
    // dev's world and lists, and prod's objects without its lists, in batches of two: nothing is planned before dev
    // has listed every kind; the plan that then releases edge starts from empty, and its pieces are edge's first
    // snapshot. That plan encodes both as well (prod's host among its pieces), but both is not recorded yet.
    await objects(h.bus, ['10.0.0.1', '10.0.0.2']);
    await objects(h.bus, ['10.0.9.1'], 'prod', 'prod.example.com');
    await markSynced(h.bus, LISTED);
    const s = new PlannerService({
      store: h.store,
      bus: h.bus,
      config: two.config,
      fleetConfigHash: two.hash,
      log: silent,
      metrics: null,
    });
    await s.recover();
    await runUntil(h, s, 4 + 4 + 6, 2);
    assert.deepEqual([...(await h.store.heads()).keys()], ['edge'], 'both waits for prod');
    // prod lists later, in one batch with a change of its own: both is released by a plan that is not the first,
    // whose pieces are only that change's; its first snapshot must still hold everything, prod's host included.
    await markSynced(h.bus, LISTED, 'prod');
    await publish(h.bus, 'EndpointSlice', slice(['10.0.9.1', '10.0.9.2']), KubeEventType.MODIFIED, 'prod');
    await runUntil(h, s, 4 + 4 + 6 + 6 + 1);
    const heads = await h.store.heads();
    const pieces = new Map(
      (await h.tdb.db.selectFrom('snapshot_pieces').select(['hash', 'body']).execute()).map((p) => [p.hash, p.body]),
    );
    const members = (appliance: string): string[] => {
      const head = heads.get(appliance);
      assert.ok(head !== undefined, `${appliance} has a head`);
      const desired = joinSnapshot(head.contentHash, (id) => pieces.get(id)); // throws on a missing piece
      return desired.pools.flatMap((p) => p.members.map((m) => `${m.address}:${m.port}`)).sort();
    };
    assert.deepEqual(members('edge'), ['10.0.0.1:8080', '10.0.0.2:8080']);
    assert.deepEqual(members('both'), ['10.0.0.1:8080', '10.0.0.2:8080', '10.0.9.1:8080', '10.0.9.2:8080']);
    const report = await replayVerify(h.store, two.config);
    assert.deepEqual({ verified: report.verified, mismatches: report.mismatches }, { verified: 2, mismatches: [] });
  } finally {
    await teardown(h);
  }
});

test('events on the bus become an archived, content-addressed snapshot; a one-endpoint change adds one snapshot', async () => {
  const h = await harness();
  try {
    await world(h.bus, ['10.0.0.1', '10.0.0.2']);
    const s = service(h);
    await s.recover();
    await runUntil(h, s, WORLD_MESSAGES);
    const heads = await h.store.heads();
    const head = heads.get('edge');
    assert.ok(head !== undefined, 'edge has a head');
    const pieces = new Map(
      (await h.tdb.db.selectFrom('snapshot_pieces').select(['hash', 'body']).execute()).map((p) => [p.hash, p.body]),
    );
    const desired = joinSnapshot(head.contentHash, (id) => pieces.get(id));
    assert.deepEqual(
      desired.pools.flatMap((p) => p.members.map((m) => `${m.address}:${m.port}`)),
      ['10.0.0.1:8080', '10.0.0.2:8080'],
    );
    assert.equal((await h.tdb.db.selectFrom('events').select('seq').execute()).length, WORLD_MESSAGES);

    const before = (await h.tdb.db.selectFrom('snapshot_pieces').select('hash').execute()).length;
    const chainBefore = await h.tdb.db.selectFrom('snapshots').select(['id', 'parent_id']).orderBy('id').execute();
    await publish(h.bus, 'EndpointSlice', slice(['10.0.0.1', '10.0.0.2', '10.0.0.3']));
    await runUntil(h, s, WORLD_MESSAGES + 1);
    const chain = await h.tdb.db.selectFrom('snapshots').select(['id', 'parent_id']).orderBy('id').execute();
    assert.equal(chain.length, chainBefore.length + 1, 'one endpoint change, one snapshot');
    assert.equal(chain.at(-1)!.parent_id, chainBefore.at(-1)!.id);
    const added = await h.tdb.db.selectFrom('snapshot_pieces').select(['hash', 'body']).execute();
    const newBytes = added.slice(before).reduce((n, p) => n + p.body.length, 0);
    assert.ok(
      added.length > before && newBytes <= 4096,
      `a one-endpoint change stored ${newBytes} bytes in ${added.length - before} pieces`,
    );

    const report = await replayVerify(h.store, config);
    assert.deepEqual(
      { verified: report.verified, mismatches: report.mismatches },
      { verified: chain.length, mismatches: [] },
    );
  } finally {
    await teardown(h);
  }
});
