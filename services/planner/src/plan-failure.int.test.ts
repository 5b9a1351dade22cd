// A plan that throws for one appliance, on a real stream and database: every batch still commits (no redelivery
// loop), the other appliance gets its snapshots, the failing one is never released empty, and it gets its first
// whole snapshot once the input that broke it is gone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { joinSnapshot } from '@portolan/snapshot';
import { parseFleetConfig } from '@portolan/fleet-config';
import { KubeEventType } from '@portolan/proto';
import { PlannerService } from './planner-service.ts';
import type { EngineFactory } from './core/planner.ts';
import { createEngine } from './core/stages/plan-engine.ts';
import {
  harness,
  kubeObject,
  publish,
  runUntil,
  silent,
  teardown,
  LISTED,
  markSynced,
  objects,
  WORLD_MESSAGES,
} from './testing/planner-service-harness.ts';

const fleet = parseFleetConfig(`
version: 1
clusters: [{ name: dev }]
appliances:
  - { name: edge, driver: haproxy, haproxy: { configDir: /tmp/x, masterSocket: /tmp/x/m.sock } }
  - { name: lb2, driver: haproxy, haproxy: { configDir: /tmp/y, masterSocket: /tmp/y/m.sock } }
bus: { url: nats://unused }
store: { url: postgres://unused }
leases: { redisUrl: redis://unused }
secrets: { keyFile: /tmp/key }
`);

/** edge's plan throws while an Ingress named `poison` exists (standing in for a bug some input meets). */
const failing: EngineFactory = (profile, clusters, layout) => {
  const engine = createEngine(profile, clusters, layout);
  if (profile.name !== 'edge') return engine;
  const plan = engine.plan.bind(engine);
  engine.plan = (w, dirty) => {
    if ([...w.ingresses('dev')].some((i) => i.metadata.name === 'poison')) throw new TypeError('a bug met poison');
    return plan(w, dirty);
  };
  return engine;
};

const poison = () =>
  kubeObject('Ingress', 'shop', 'poison', {
    spec: { ingressClassName: 'portolan', defaultBackend: { service: { name: 'web', port: { number: 80 } } } },
  });

test('a plan that throws for one appliance: batches commit, the other appliance goes on, none is released empty', async () => {
  const h = await harness();
  try {
    await publish(h.bus, 'Ingress', poison(), KubeEventType.ADDED);
    await objects(h.bus, ['10.0.0.1']);
    await markSynced(h.bus, { ...LISTED, Ingress: ['shop/poison', 'shop/web'] });
    const s = new PlannerService({
      store: h.store,
      bus: h.bus,
      config: fleet.config,
      fleetConfigHash: fleet.hash,
      log: silent,
      metrics: null,
      createEngine: failing,
    });
    await s.recover();
    await runUntil(h, s, 1 + WORLD_MESSAGES);
    assert.equal(s.committedPosition, 1 + WORLD_MESSAGES, 'every batch committed');
    assert.deepEqual([...(await h.store.heads()).keys()], ['lb2'], 'edge keeps no snapshot rather than an empty one');

    await publish(h.bus, 'Ingress', poison(), KubeEventType.DELETED);
    await runUntil(h, s, 2 + WORLD_MESSAGES);
    const heads = await h.store.heads();
    const pieces = new Map(
      (await h.tdb.db.selectFrom('snapshot_pieces').select(['hash', 'body']).execute()).map((p) => [p.hash, p.body]),
    );
    const hosts = (appliance: string) =>
      joinSnapshot(heads.get(appliance)!.contentHash, (id) => pieces.get(id)).virtualServices.flatMap((v) =>
        v.routes.map((r) => r.host),
      );
    assert.deepEqual(hosts('edge'), ['shop.example.com'], "edge's first snapshot is whole once the poison is gone");
    assert.deepEqual(hosts('edge'), hosts('lb2'));
  } finally {
    await teardown(h);
  }
});
