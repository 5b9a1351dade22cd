// The planner service's integration harness: a private stream and database per test, the watcher's messages as
// the planner reads them, and a loop that runs a planner until it has committed a position.
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
import { PgPlannerStore } from '../adapters/pg-planner-store.ts';
import { PlannerService } from '../planner-service.ts';

export const { config, hash } = parseFleetConfig(`
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
export const silent = createLogger('test', { destination: new Writable({ write: (_c, _e, done) => done() }) });

export const kinds: Record<string, [KubeKind, KindToken]> = {
  Ingress: [KubeKind.INGRESS, 'ingress'],
  IngressClass: [KubeKind.INGRESS_CLASS, 'ingressclass'],
  Service: [KubeKind.SERVICE, 'service'],
  EndpointSlice: [KubeKind.ENDPOINT_SLICE, 'endpointslice'],
  Secret: [KubeKind.SECRET, 'secret'],
  Node: [KubeKind.NODE, 'node'],
};

/** The list markers a watcher publishes after its first list: the planner plans nothing before them. */
export async function markSynced(bus: NatsEventBus, keys: Record<string, string[]>, cluster = 'dev'): Promise<void> {
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
export function kubeObject(
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
export function slice(addresses: string[]): Record<string, unknown> {
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

export async function publish(
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
export async function objects(
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
export const LISTED = {
  IngressClass: ['portolan'],
  Service: ['shop/web'],
  EndpointSlice: ['shop/web-1'],
  Ingress: ['shop/web'],
};

export async function world(bus: NatsEventBus, addresses: string[]): Promise<void> {
  await objects(bus, addresses);
  await markSynced(bus, LISTED);
}
export const WORLD_MESSAGES = 4 + 6;

export interface Harness {
  bus: NatsEventBus;
  tdb: TestDatabase;
  store: PgPlannerStore;
  stream: string;
}
export async function harness(): Promise<Harness> {
  const stack = await testStack();
  const stream = `P_${randomBytes(4).toString('hex')}`;
  const bus = await NatsEventBus.open(
    stack.natsUrl,
    busDeclaration({ stream, replicas: 1, maxPayloadBytes: 1 << 20, subjectPrefix: stream }),
  );
  const tdb = await createTestDatabase(stack.postgresUrl);
  return { bus, tdb, store: new PgPlannerStore(tdb.db), stream };
}
export async function teardown(h: Harness): Promise<void> {
  await h.bus.jsm.streams.delete(h.stream).catch(ignoreMissingStream);
  await h.bus.jsm.streams.delete(h.bus.declaration.pipeline.name).catch(ignoreMissingStream);
  await h.bus.close();
  await h.tdb.drop();
}
export const service = (h: Harness): PlannerService =>
  new PlannerService({ store: h.store, bus: h.bus, config, fleetConfigHash: hash, log: silent, metrics: null });

/** Runs a planner until the committed position reaches `seq`. */
export async function runUntil(h: Harness, s: PlannerService, seq: number, maxBatch?: number): Promise<void> {
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

/** Cleanup after a test: a stream already gone is what cleanup wants; anything else is a failure. */
export function ignoreMissingStream(e: unknown): void {
  if (!(e instanceof Error && /stream not found/i.test(e.message))) throw e;
}
