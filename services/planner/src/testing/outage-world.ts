// The Kubernetes side of the planner's outage tests: a small two-cluster world published to the bus the way a
// watcher does, EndpointSlice changes drawn from a seeded generator, and the model of what every appliance's
// snapshot must then hold (the last published addresses of every slice of every cluster it serves).
import {
  kubeEventMsgId,
  kubeEventSubject,
  kubeListMarkerMsgId,
  kubeListMarkerSubject,
  type KindToken,
  type NatsEventBus,
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
import { parseFleetConfig } from '@portolan/fleet-config';
import type { DesiredState } from '@portolan/desired-state';
import { joinSnapshot } from '@portolan/snapshot';
import type { PgPlannerStore } from '../adapters/pg-planner-store.ts';

/** Two clusters; `edge` serves dev only, `both` serves dev and prod (its pools merge the clusters' endpoints). */
export const outageFleet = parseFleetConfig(`
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

/** The clusters each appliance of `outageFleet` serves. */
export const SERVED: Readonly<Record<string, readonly string[]>> = { edge: ['dev'], both: ['dev', 'prod'] };
const CLUSTERS = ['dev', 'prod'] as const;
/** Services per cluster, each with one EndpointSlice and one Ingress. */
const SERVICES = 4;

const KINDS: Record<string, [KubeKind, KindToken]> = {
  Ingress: [KubeKind.INGRESS, 'ingress'],
  IngressClass: [KubeKind.INGRESS_CLASS, 'ingressclass'],
  Service: [KubeKind.SERVICE, 'service'],
  EndpointSlice: [KubeKind.ENDPOINT_SLICE, 'endpointslice'],
  Secret: [KubeKind.SECRET, 'secret'],
  Node: [KubeKind.NODE, 'node'],
};

/** mulberry32: a small seeded generator, so a failing run's draws can be repeated with its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Publishes the world and its changes, and remembers the last addresses published (acknowledged) per slice. */
export class KubeTraffic {
  private readonly bus: NatsEventBus;
  private readonly random: () => number;
  private rv = 100;
  /** `cluster/service` → the addresses of its slice as last published. */
  readonly slices = new Map<string, readonly string[]>();
  /** The stream sequence of the last acknowledged publish. */
  lastSeq = 0;
  /** Slice changes published. */
  changes = 0;

  constructor(bus: NatsEventBus, random: () => number) {
    this.bus = bus;
    this.random = random;
  }

  /** Every cluster's class, Services, slices and Ingresses, then a list marker of every kind (so the planner may plan). */
  async publishWorld(): Promise<void> {
    for (const cluster of CLUSTERS) {
      await this.event(
        cluster,
        'IngressClass',
        this.object('', 'portolan', { spec: { controller: 'portolan.dev/ingress-controller' } }),
        KubeEventType.ADDED,
      );
      for (let i = 0; i < SERVICES; i++) {
        await this.event(
          cluster,
          'Service',
          this.object('shop', `s${i}`, {
            spec: { ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }] },
          }),
          KubeEventType.ADDED,
        );
        await this.slice(cluster, i, [`10.${CLUSTERS.indexOf(cluster)}.${i}.1`], KubeEventType.ADDED);
        const rule = {
          host: `s${i}.${cluster}.example.com`,
          http: {
            paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: `s${i}`, port: { number: 80 } } } }],
          },
        };
        await this.event(
          cluster,
          'Ingress',
          this.object('shop', `s${i}`, { spec: { ingressClassName: 'portolan', rules: [rule] } }),
          KubeEventType.ADDED,
        );
      }
      const names = Array.from({ length: SERVICES }, (_, i) => `shop/s${i}`);
      const listed: Record<string, string[]> = {
        IngressClass: ['portolan'],
        Service: names,
        EndpointSlice: names.map((n) => `${n}-1`),
        Ingress: names,
      };
      for (const [kind, [k, token]] of Object.entries(KINDS)) {
        const marker = create(KubeListMarkerSchema, {
          cluster,
          kind: k,
          listResourceVersion: String(this.rv),
          listGeneration: 1n,
          chunkIndex: 0,
          chunkCount: 1,
          keys: listed[kind] ?? [],
        });
        const ack = await this.bus.publish(
          kubeListMarkerSubject(cluster, token),
          toBinary(KubeListMarkerSchema, marker),
          { msgId: kubeListMarkerMsgId(cluster, token, `${this.rv}.1`, 0, 1) },
        );
        this.lastSeq = Math.max(this.lastSeq, ack.seq);
      }
    }
  }

  /** One EndpointSlice of a random Service in a random cluster gets 0-3 random ready addresses. */
  async change(): Promise<void> {
    const c = Math.floor(this.random() * CLUSTERS.length);
    const i = Math.floor(this.random() * SERVICES);
    const n = Math.floor(this.random() * 4);
    const addresses = [
      ...new Set(Array.from({ length: n }, () => `10.${c}.${i}.${1 + Math.floor(this.random() * 20)}`)),
    ].sort();
    await this.slice(CLUSTERS[c]!, i, addresses, KubeEventType.MODIFIED);
    this.changes++;
  }

  /** What `appliance`'s snapshot must hold: `cluster|service|address:port` for every endpoint it serves. */
  expectedMembers(appliance: string): string[] {
    const out: string[] = [];
    for (const cluster of SERVED[appliance] ?? []) {
      for (let i = 0; i < SERVICES; i++)
        for (const a of this.slices.get(`${cluster}/s${i}`) ?? []) out.push(`${cluster}|s${i}|${a}:8080`);
    }
    return out.sort();
  }

  private async slice(cluster: string, i: number, addresses: readonly string[], type: KubeEventType): Promise<void> {
    const body = {
      metadata: { labels: { 'kubernetes.io/service-name': `s${i}` } },
      addressType: 'IPv4',
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      endpoints: addresses.map((a) => ({
        addresses: [a],
        conditions: { ready: true, serving: true, terminating: false },
      })),
    };
    await this.event(cluster, 'EndpointSlice', this.object('shop', `s${i}-1`, body), type);
    // Recorded only once the stream acknowledged it: the checker expects exactly what was acknowledged.
    this.slices.set(`${cluster}/s${i}`, addresses);
  }

  private object(namespace: string, name: string, body: Record<string, unknown>): Record<string, unknown> {
    this.rv++;
    const extra = (body.metadata as Record<string, unknown> | undefined) ?? {};
    return {
      ...body,
      metadata: {
        namespace,
        name,
        uid: `uid-${namespace}-${name}`,
        resourceVersion: String(this.rv),
        creationTimestamp: '2026-01-01T00:00:00Z',
        ...extra,
      },
    };
  }

  private async event(
    cluster: string,
    kind: string,
    object: Record<string, unknown>,
    type: KubeEventType,
  ): Promise<void> {
    const [k, token] = KINDS[kind]!;
    const meta = object.metadata as { namespace: string; name: string; uid: string; resourceVersion: string };
    const uid = `${cluster}-${kind}-${meta.uid}`;
    const msg = create(KubeEventSchema, {
      cluster,
      kind: k,
      namespace: meta.namespace,
      name: meta.name,
      uid,
      resourceVersion: meta.resourceVersion,
      type,
      object: new TextEncoder().encode(JSON.stringify({ ...object, metadata: { ...meta, uid } })),
      observedAt: timestampFromMs(1_700_000_000_000),
    });
    const ack = await this.bus.publish(kubeEventSubject(cluster, token), toBinary(KubeEventSchema, msg), {
      msgId: kubeEventMsgId(cluster, uid, meta.resourceVersion, String(type)),
    });
    this.lastSeq = Math.max(this.lastSeq, ack.seq);
  }
}

/** Every stored piece by hash (the outage tests' worlds are small). */
export async function storedPieces(store: PgPlannerStore): Promise<Map<string, Uint8Array>> {
  return new Map(
    (await store.db.selectFrom('snapshot_pieces').select(['hash', 'body']).execute()).map((p) => [p.hash, p.body]),
  );
}

/** The endpoints a desired state serves, as `cluster|service|address:port` (the form of `expectedMembers`). */
export function servedMembers(desired: DesiredState): string[] {
  return desired.pools
    .flatMap((p) =>
      p.members.map(
        (m) => `${m.cluster}|${p.services.find((s) => s.cluster === m.cluster)?.name ?? '?'}|${m.address}:${m.port}`,
      ),
    )
    .sort();
}

/** The endpoints each appliance's head snapshot serves (joining throws on a missing piece). */
export async function headMembers(store: PgPlannerStore): Promise<Map<string, string[]>> {
  const pieces = await storedPieces(store);
  const out = new Map<string, string[]>();
  for (const [appliance, head] of await store.heads())
    out.set(appliance, servedMembers(joinSnapshot(head.contentHash, (id) => pieces.get(id))));
  return out;
}
