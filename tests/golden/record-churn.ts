// Records the 1k-Service churn golden history: a cluster of 1,000 Services, each with an EndpointSlice and an
// Ingress, listed, then 3,000 endpoint changes drawn from a seeded generator, encoded as the watcher encodes them.
// The snapshot hashes are today's planner's at every 250th message. Run: node tests/golden/record-churn.ts
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { kubeEventSubject, kubeListMarkerSubject, type KindToken } from '@portolan/bus';
import { parseFleetConfig } from '@portolan/fleet-config';
import { decodeBusMessage, encodeGoldenHistory, foldInput, Planner, PLANNER_VERSION, type GoldenHistory } from '@portolan/planner';
import { create, KubeEventSchema, KubeEventType, KubeKind, KubeListMarkerSchema, timestampFromMs, toBinary } from '@portolan/proto';

const { config } = parseFleetConfig(`
version: 1
clusters: [{ name: prod }]
appliances:
  - { name: edge, driver: haproxy, haproxy: { configDir: /recorded, masterSocket: /recorded } }
bus: { url: nats://unused }
store: { url: postgres://unused }
leases: { redisUrl: redis://unused }
secrets: { keyFile: /recorded }
`);

/** mulberry32: the same draws on every machine. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SERVICES = 1000;
const CHANGES = 3000;
const random = seeded(20261127);
const messages: { subject: string; payload: Uint8Array }[] = [];
let rv = 1000;
const kinds: Record<string, [KubeKind, KindToken]> = {
  IngressClass: [KubeKind.INGRESS_CLASS, 'ingressclass'], Service: [KubeKind.SERVICE, 'service'], EndpointSlice: [KubeKind.ENDPOINT_SLICE, 'endpointslice'], Ingress: [KubeKind.INGRESS, 'ingress'],
  Secret: [KubeKind.SECRET, 'secret'], Node: [KubeKind.NODE, 'node'],
};
function event(kind: string, namespace: string, name: string, body: Record<string, unknown>, type = KubeEventType.ADDED): void {
  const [k, token] = kinds[kind]!;
  rv++;
  const uid = `uid-${kind}-${namespace}-${name}`;
  const object = { ...body, metadata: { ...((body['metadata'] as object | undefined) ?? {}), namespace, name, uid, resourceVersion: String(rv), creationTimestamp: '2026-01-01T00:00:00Z' } };
  const msg = create(KubeEventSchema, { cluster: 'prod', kind: k, namespace, name, uid, resourceVersion: String(rv), type, object: new TextEncoder().encode(JSON.stringify(object)), observedAt: timestampFromMs(1_800_000_000_000 + rv) });
  messages.push({ subject: kubeEventSubject('prod', token), payload: toBinary(KubeEventSchema, msg) });
}
const ns = (i: number): string => `team-${i % 50}`;
const endpoints = (i: number, n: number): unknown[] => Array.from({ length: n }, (_, j) => ({ addresses: [`10.${(i >> 8) & 255}.${i & 255}.${j + 1}`], conditions: { ready: random() > 0.1, serving: true, terminating: false } }));
const slice = (i: number, n: number): Record<string, unknown> => ({ metadata: { labels: { 'kubernetes.io/service-name': `svc-${i}` } }, addressType: 'IPv4', ports: [{ name: 'http', port: 8080, protocol: 'TCP' }], endpoints: endpoints(i, n) });

event('IngressClass', '', 'portolan', { spec: { controller: 'portolan.dev/ingress-controller' } });
for (let i = 0; i < SERVICES; i++) {
  event('Service', ns(i), `svc-${i}`, { spec: { ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }] } });
  event('EndpointSlice', ns(i), `svc-${i}-1`, slice(i, 1 + Math.floor(random() * 4)));
  event('Ingress', ns(i), `ing-${i}`, { spec: { ingressClassName: 'portolan', rules: [{ host: `s${i}.example.com`, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: `svc-${i}`, port: { number: 80 } } } }] } }] } });
}
for (const [kind, [k, token]] of Object.entries(kinds)) {
  const keys = kind === 'IngressClass' ? ['portolan'] : kind === 'Service' ? Array.from({ length: SERVICES }, (_, i) => `${ns(i)}/svc-${i}`)
    : kind === 'EndpointSlice' ? Array.from({ length: SERVICES }, (_, i) => `${ns(i)}/svc-${i}-1`) : kind === 'Ingress' ? Array.from({ length: SERVICES }, (_, i) => `${ns(i)}/ing-${i}`) : [];
  messages.push({ subject: kubeListMarkerSubject('prod', token), payload: toBinary(KubeListMarkerSchema, create(KubeListMarkerSchema, { cluster: 'prod', kind: k, listResourceVersion: String(rv), listGeneration: 1n, chunkIndex: 0, chunkCount: 1, keys, observedAt: timestampFromMs(1_800_000_000_000 + rv) })) });
}
for (let c = 0; c < CHANGES; c++) {
  const i = Math.floor(random() * SERVICES);
  event('EndpointSlice', ns(i), `svc-${i}-1`, slice(i, Math.floor(random() * 5)), KubeEventType.MODIFIED);
}

// Today's planner, checkpointed every 250 messages: the hashes a pipeline batching that way would have recorded.
const planner = new Planner(config);
const snapshots: GoldenHistory['snapshots'][number][] = [];
const heartbeats = new Map<string, number>();
let last: string | null = null;
messages.forEach((m, i) => {
  foldInput(planner, decodeBusMessage(m.subject, m.payload), heartbeats);
  if ((i + 1) % 250 !== 0 && i !== messages.length - 1) return;
  for (const p of planner.planDirty()) {
    if (p.root === last) continue;
    last = p.root;
    snapshots.push({ appliance: p.appliance, lastEventSeq: i + 1, contentHash: p.root });
  }
});
const history: GoldenHistory = {
  name: 'churn-1k', plannerVersion: PLANNER_VERSION, config: { clusters: config.clusters, appliances: config.appliances },
  events: messages.map((m, i) => ({ seq: i + 1, subject: m.subject, payload: Buffer.from(m.payload).toString('base64') })), snapshots,
};
const file = path.join(import.meta.dirname, 'churn-1k.json.gz');
writeFileSync(file, encodeGoldenHistory(history));
process.stdout.write(`recorded ${history.events.length} events, ${snapshots.length} snapshots into ${path.basename(file)}\n`);
