// A fleet-config change that would drop most of an appliance's hosts is held like any unexplained removal: the
// planner, started with the new config, publishes the hold into the stream, keeps serving the dropped Ingresses
// until an operator approves, and the snapshots planned under the new config replay exactly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import {
  busDeclaration,
  holdApprovalSubject,
  kubeEventMsgId,
  kubeEventSubject,
  kubeListMarkerMsgId,
  kubeListMarkerSubject,
  NatsEventBus,
  type KindToken,
} from '@portolan/bus';
import { parseFleetConfig } from '@portolan/fleet-config';
import { testStack } from '@portolan/infra';
import {
  create,
  HoldApprovedSchema,
  KubeEventSchema,
  KubeEventType,
  KubeKind,
  KubeListMarkerSchema,
  timestampFromMs,
  toBinary,
} from '@portolan/proto';
import { createTestDatabase } from '@portolan/store';
import { createLogger } from '@portolan/telemetry';
import { PgPlannerStore } from './adapters/pg-planner-store.ts';
import { joinSnapshot } from '@portolan/snapshot';
import { PlannerService } from './planner-service.ts';
import { replayVerify } from './replay-verify.ts';
import { ignoreMissingStream } from './testing/planner-service-harness.ts';

const silent = createLogger('test', { destination: new Writable({ write: (_c, _e, done) => done() }) });
const fleet = (namespaces: string): ReturnType<typeof parseFleetConfig> =>
  parseFleetConfig(`
version: 1
clusters: [{ name: dev, namespaces: ${namespaces} }]
appliances:
  - name: edge
    driver: haproxy
    haproxy: { configDir: /tmp/x, masterSocket: /tmp/x/m.sock }
bus: { url: nats://unused }
store: { url: postgres://unused }
leases: { redisUrl: redis://unused }
secrets: { keyFile: /tmp/key }
`);
const before = fleet('all-except-kube-system');
const after = fleet('[shop]');

let rv = 100;
const kinds: Record<string, [KubeKind, KindToken]> = {
  Ingress: [KubeKind.INGRESS, 'ingress'],
  IngressClass: [KubeKind.INGRESS_CLASS, 'ingressclass'],
  Service: [KubeKind.SERVICE, 'service'],
  EndpointSlice: [KubeKind.ENDPOINT_SLICE, 'endpointslice'],
  Secret: [KubeKind.SECRET, 'secret'],
  Node: [KubeKind.NODE, 'node'],
};
async function publish(
  bus: NatsEventBus,
  kind: string,
  namespace: string,
  name: string,
  body: Record<string, unknown>,
): Promise<void> {
  const [k, token] = kinds[kind]!;
  rv++;
  const object = {
    ...body,
    metadata: {
      namespace,
      name,
      uid: `u-${kind}-${namespace}-${name}`,
      resourceVersion: String(rv),
      creationTimestamp: '2026-01-01T00:00:00Z',
    },
  };
  const msg = create(KubeEventSchema, {
    cluster: 'dev',
    kind: k,
    namespace,
    name,
    uid: object.metadata.uid,
    resourceVersion: String(rv),
    type: KubeEventType.ADDED,
    object: new TextEncoder().encode(JSON.stringify(object)),
    observedAt: timestampFromMs(Date.now()),
  });
  await bus.publish(kubeEventSubject('dev', token), toBinary(KubeEventSchema, msg), {
    msgId: kubeEventMsgId('dev', object.metadata.uid, String(rv), 'ADDED'),
  });
}
const ingress = (host: string): Record<string, unknown> => ({
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
});

test('a fleet-config change dropping 6 of 7 hosts is held until approved; the rest of planning goes on', async () => {
  const stack = await testStack();
  const stream = `C_${randomBytes(4).toString('hex')}`;
  const bus = await NatsEventBus.open(
    stack.natsUrl,
    busDeclaration({ stream, replicas: 1, maxPayloadBytes: 1 << 20, subjectPrefix: stream }),
  );
  const tdb = await createTestDatabase(stack.postgresUrl);
  const store = new PgPlannerStore(tdb.db);
  const run = async (s: PlannerService, seq: number): Promise<void> => {
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), 20_000);
    await bus.consumeBatches(
      'planner',
      async (batch) => {
        await s.handleBatch(batch);
        if (s.committedPosition >= seq) stop.abort();
      },
      { signal: stop.signal },
    );
    clearTimeout(timer);
    assert.ok(s.committedPosition >= seq, `reached ${s.committedPosition} of ${seq}`);
  };
  const hosts = async (): Promise<string[]> => {
    const head = (await store.heads()).get('edge')!;
    const pieces = new Map(
      (await tdb.db.selectFrom('snapshot_pieces').select(['hash', 'body']).execute()).map((p) => [p.hash, p.body]),
    );
    return joinSnapshot(head.contentHash, (id) => pieces.get(id))
      .virtualServices.flatMap((vs) => vs.routes.map((r) => r.host))
      .sort();
  };
  try {
    // Under the first config: a class, a Service, one Ingress in shop and six in team.
    await store.recordFleetConfig(before.hash, before.config);
    const first = new PlannerService({
      store,
      bus,
      config: before.config,
      fleetConfigHash: before.hash,
      log: silent,
      metrics: null,
    });
    await first.recover();
    await publish(bus, 'IngressClass', '', 'portolan', { spec: { controller: 'portolan.dev/ingress-controller' } });
    await publish(bus, 'Ingress', 'shop', 'web', ingress('shop.example.com'));
    for (let i = 0; i < 6; i++) await publish(bus, 'Ingress', 'team', `i${i}`, ingress(`t${i}.example.com`));
    for (const [kind, [k, token]] of Object.entries(kinds)) {
      const keys =
        kind === 'Ingress'
          ? ['shop/web', ...Array.from({ length: 6 }, (_, i) => `team/i${i}`)]
          : kind === 'IngressClass'
            ? ['portolan']
            : [];
      await bus.publish(
        kubeListMarkerSubject('dev', token),
        toBinary(
          KubeListMarkerSchema,
          create(KubeListMarkerSchema, {
            cluster: 'dev',
            kind: k,
            listResourceVersion: String(rv),
            listGeneration: 1n,
            chunkIndex: 0,
            chunkCount: 1,
            keys,
          }),
        ),
        { msgId: kubeListMarkerMsgId('dev', token, String(rv), 0, 1) },
      );
    }
    await run(first, 7 + 6);
    assert.equal((await hosts()).length, 7);

    // The operator narrows the namespace scope to shop and restarts the planner: the hold goes into the stream.
    await store.recordFleetConfig(after.hash, after.config);
    const second = new PlannerService({
      store,
      bus,
      config: after.config,
      fleetConfigHash: after.hash,
      log: silent,
      metrics: null,
    });
    await second.recover();
    await run(second, 14);
    assert.equal((await hosts()).length, 7, 'the six team hosts stay served');
    const open = await tdb.db
      .selectFrom('removal_holds')
      .select(['object_key', 'reason'])
      .where('released_seq', 'is', null)
      .execute();
    assert.deepEqual(
      open.map((r) => r.object_key).sort(),
      Array.from({ length: 6 }, (_, i) => `team/i${i}`),
    );
    assert.match(open[0]!.reason, /a fleet-config change no longer serves 6 of 7 hosts on edge/);

    // Other changes go on meanwhile: a new Ingress in shop is planned at once.
    await publish(bus, 'Ingress', 'shop', 'new', ingress('new.example.com'));
    await run(second, 15);
    assert.ok((await hosts()).includes('new.example.com'));

    // The approval removes them.
    const approval = create(HoldApprovedSchema, {
      appliance: 'edge',
      approvedBy: 'ops',
      reason: 'team moved',
      approvedAt: timestampFromMs(Date.now()),
      approvalId: 'a1',
    });
    await bus.publish(holdApprovalSubject, toBinary(HoldApprovedSchema, approval), { msgId: 'approve:a1' });
    await run(second, 16);
    assert.deepEqual(await hosts(), ['new.example.com', 'shop.example.com']);

    // Every snapshot planned under the new config replays exactly (the earlier ones were planned under the old one).
    const underNew = (
      await tdb.db.selectFrom('snapshots').select('id').where('fleet_config_hash', '=', after.hash).execute()
    ).map((r) => String(r.id));
    const report = await replayVerify(store, after.config);
    assert.ok(underNew.length >= 2);
    assert.deepEqual(
      report.mismatches.filter((m) => underNew.includes(m.snapshotId)),
      [],
    );
  } finally {
    await bus.jsm.streams.delete(stream).catch(ignoreMissingStream);
    await bus.jsm.streams.delete(bus.declaration.pipeline.name).catch(ignoreMissingStream);
    await bus.close();
    await tdb.drop();
  }
});
