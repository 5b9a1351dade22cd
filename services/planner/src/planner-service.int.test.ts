import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  busDeclaration,
  NatsEventBus,
  kubeEventSubject,
  kubeEventMsgId,
  kubeListMarkerSubject,
  kubeListMarkerMsgId,
  type KindToken,
} from '@portolan/bus';
import {
  create,
  toBinary,
  timestampFromMs,
  KubeEventSchema,
  KubeListMarkerSchema,
  KubeKind,
  KubeEventType,
} from '@portolan/proto';
import { createTestDatabase, type TestDatabase } from '@portolan/store';
import { testStack } from '@portolan/infra';
import { parseFleetConfig } from '@portolan/fleet-config';
import { createLogger } from '@portolan/telemetry';
import { Writable } from 'node:stream';
import { PgPlannerStore } from './adapters/pg-planner-store.ts';
import { PlannerService } from './planner-service.ts';
import { replayVerify } from './replay-verify.ts';
import { joinSnapshot } from '@portolan/snapshot';
import { CURRENT_LAYOUT, LAYOUT_1 } from '@portolan/snapshot';

const { config, hash } = parseFleetConfig(`
version: 1
clusters: [{ name: dev }]
appliances:
  - name: edge
    driver: haproxy
    haproxy: { configDir: /tmp/x, masterSocket: /tmp/x/m.sock }
bus: { url: nats://unused }
store: { url: postgres://unused }
leases: { redisUrl: redis://unused }
secrets: { keyFile: /tmp/key }
`);
const silent = createLogger('test', { destination: new Writable({ write: (_c, _e, done) => done() }) });

const kinds: Record<string, [KubeKind, KindToken]> = {
  Ingress: [KubeKind.INGRESS, 'ingress'],
  IngressClass: [KubeKind.INGRESS_CLASS, 'ingressclass'],
  Service: [KubeKind.SERVICE, 'service'],
  EndpointSlice: [KubeKind.ENDPOINT_SLICE, 'endpointslice'],
  Secret: [KubeKind.SECRET, 'secret'],
  Node: [KubeKind.NODE, 'node'],
};

/** The list markers a watcher publishes after its first list: the planner plans nothing before them. */
async function markSynced(bus: NatsEventBus, keys: Record<string, string[]>, cluster = 'dev'): Promise<void> {
  for (const [kind, [k, token]] of Object.entries(kinds)) {
    const msg = create(KubeListMarkerSchema, {
      cluster,
      kind: k,
      listResourceVersion: String(rv),
      listGeneration: 1n,
      chunkIndex: 0,
      chunkCount: 1,
      keys: keys[kind] ?? [],
    });
    await bus.publish(kubeListMarkerSubject(cluster, token), toBinary(KubeListMarkerSchema, msg), {
      msgId: kubeListMarkerMsgId(cluster, token, `${rv}.1`, 0, 1),
    });
  }
}
let rv = 100;
function kubeObject(
  kind: string,
  namespace: string,
  name: string,
  body: Record<string, unknown>,
): Record<string, unknown> {
  rv++;
  const extra = (body.metadata as Record<string, unknown> | undefined) ?? {};
  return {
    ...body,
    metadata: {
      namespace,
      name,
      uid: `uid-${kind}-${namespace}-${name}`,
      resourceVersion: String(rv),
      creationTimestamp: '2026-01-01T00:00:00Z',
      ...extra,
    },
  };
}
function slice(addresses: string[]): Record<string, unknown> {
  return kubeObject('EndpointSlice', 'shop', 'web-1', {
    metadata: { labels: { 'kubernetes.io/service-name': 'web' } },
    addressType: 'IPv4',
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    endpoints: addresses.map((a) => ({
      addresses: [a],
      conditions: { ready: true, serving: true, terminating: false },
    })),
  });
}

async function publish(
  bus: NatsEventBus,
  kind: string,
  object: Record<string, unknown>,
  type: KubeEventType = KubeEventType.MODIFIED,
  cluster = 'dev',
): Promise<void> {
  const [k, token] = kinds[kind]!;
  const meta = object.metadata as { namespace: string; name: string; uid: string; resourceVersion: string };
  const msg = create(KubeEventSchema, {
    cluster,
    kind: k,
    namespace: meta.namespace,
    name: meta.name,
    uid: meta.uid,
    resourceVersion: meta.resourceVersion,
    type,
    object: new TextEncoder().encode(JSON.stringify(object)),
    observedAt: timestampFromMs(1_700_000_000_000),
  });
  await bus.publish(kubeEventSubject(cluster, token), toBinary(KubeEventSchema, msg), {
    msgId: kubeEventMsgId(cluster, meta.uid, meta.resourceVersion, String(type)),
  });
}

/** A class, a Service with its slice, and an Ingress routing `host` to it: four events. */
async function objects(
  bus: NatsEventBus,
  addresses: string[],
  cluster = 'dev',
  host = 'shop.example.com',
): Promise<void> {
  await publish(
    bus,
    'IngressClass',
    kubeObject('IngressClass', '', 'portolan', { spec: { controller: 'portolan.dev/ingress-controller' } }),
    KubeEventType.ADDED,
    cluster,
  );
  await publish(
    bus,
    'Service',
    kubeObject('Service', 'shop', 'web', {
      spec: { ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }] },
    }),
    KubeEventType.ADDED,
    cluster,
  );
  await publish(bus, 'EndpointSlice', slice(addresses), KubeEventType.ADDED, cluster);
  await publish(
    bus,
    'Ingress',
    kubeObject('Ingress', 'shop', 'web', {
      spec: {
        ingressClassName: 'portolan',
        rules: [
          {
            host,
            http: {
              paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }],
            },
          },
        ],
      },
    }),
    KubeEventType.ADDED,
    cluster,
  );
}
const LISTED = {
  IngressClass: ['portolan'],
  Service: ['shop/web'],
  EndpointSlice: ['shop/web-1'],
  Ingress: ['shop/web'],
};

async function world(bus: NatsEventBus, addresses: string[]): Promise<void> {
  await objects(bus, addresses);
  await markSynced(bus, LISTED);
}
const WORLD_MESSAGES = 4 + 6;

interface Harness {
  bus: NatsEventBus;
  tdb: TestDatabase;
  store: PgPlannerStore;
  stream: string;
}
async function harness(): Promise<Harness> {
  const stack = await testStack();
  const stream = `P_${randomBytes(4).toString('hex')}`;
  const bus = await NatsEventBus.open(
    stack.natsUrl,
    busDeclaration({ stream, replicas: 1, maxPayloadBytes: 1 << 20, subjectPrefix: stream }),
  );
  const tdb = await createTestDatabase(stack.postgresUrl);
  return { bus, tdb, store: new PgPlannerStore(tdb.db), stream };
}
async function teardown(h: Harness): Promise<void> {
  await h.bus.jsm.streams.delete(h.stream).catch(() => {});
  await h.bus.jsm.streams.delete(h.bus.declaration.pipeline.name).catch(() => {});
  await h.bus.close();
  await h.tdb.drop();
}
const service = (h: Harness): PlannerService =>
  new PlannerService({ store: h.store, bus: h.bus, config, fleetConfigHash: hash, log: silent, metrics: null });

/** Runs a planner until the committed position reaches `seq`. */
async function runUntil(h: Harness, s: PlannerService, seq: number, maxBatch?: number): Promise<void> {
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), 20_000);
  await h.bus.consumeBatches(
    'planner',
    async (batch) => {
      await s.handleBatch(batch);
      if (s.committedPosition >= seq) stop.abort();
    },
    { signal: stop.signal, ...(maxBatch === undefined ? {} : { maxBatch }) },
  );
  clearTimeout(timer);
  assert.ok(s.committedPosition >= seq, `reached ${s.committedPosition} of ${seq}`);
}

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
