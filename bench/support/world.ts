// Synthetic Kubernetes worlds for the benchmarks: API-shaped objects (what a user would `kubectl apply`), so the
// same generator feeds the API simulator (real watcher) and the planner core (after the watcher's trimming).
import type { KubeObject } from '@portolan/kube-sim';

/** Endpoints per EndpointSlice (the benchmark goals' "10-endpoint slices"). */
export const ENDPOINTS_PER_SLICE = 10;
/** Namespaces the Services are spread over. */
const NAMESPACES = 50;

/** The IngressClass name each benchmark appliance answers, by controller. */
export const CLASSES = {
  haproxy: { name: 'portolan', controller: 'portolan.dev/ingress-controller' },
  vtm: { name: 'vtm', controller: 'pulsesecure.net/vtm-ingress-controller' },
  loadmaster: { name: 'loadmaster', controller: 'portolan.dev/loadmaster' },
} as const;

/** Which appliance class an Ingress of the world is for. */
export type ClassName = keyof typeof CLASSES;

/** Namespace of Service i. */
export function namespaceOf(i: number): string {
  return `team-${i % NAMESPACES}`;
}

/** Host name served for Service i. */
export function hostOf(i: number): string {
  return `h${i}.bench.test`;
}

/** Address of endpoint j of Service i at change generation `gen` (gen 0: the original; only endpoint 0 moves). */
export function endpointAddress(i: number, j: number, gen = 0): string {
  if (j === 0 && gen > 0) return `10.${200 + (gen % 50)}.${(i >> 8) & 255}.${i & 255}`;
  return `10.${(i >> 8) & 255}.${i & 255}.${j + 1}`;
}

/** The Namespace objects of a world (the simulator needs them before namespaced objects). */
export function namespaces(): KubeObject[] {
  return Array.from(
    { length: NAMESPACES },
    (_, n) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `team-${n}` } }) as KubeObject,
  );
}

/** An IngressClass for one of the benchmark appliances. */
export function ingressClass(which: ClassName): KubeObject {
  const c = CLASSES[which];
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IngressClass',
    metadata: { name: c.name },
    spec: { controller: c.controller },
  } as KubeObject;
}

/** Service `svc-i`: port 80 (`http`) → 8080. */
export function service(i: number, name = `svc-${i}`): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { namespace: namespaceOf(i), name },
    spec: { type: 'ClusterIP', ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }] },
  } as KubeObject;
}

/** The EndpointSlice of Service i: `ENDPOINTS_PER_SLICE` ready endpoints, or the given [address, port] pairs. */
export function endpointSlice(
  i: number,
  gen = 0,
  o: { name?: string; addresses?: readonly string[]; port?: number } = {},
): KubeObject {
  const svc = o.name ?? `svc-${i}`;
  const addresses = o.addresses ?? Array.from({ length: ENDPOINTS_PER_SLICE }, (_, j) => endpointAddress(i, j, gen));
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { namespace: namespaceOf(i), name: `${svc}-a`, labels: { 'kubernetes.io/service-name': svc } },
    addressType: 'IPv4',
    endpoints: addresses.map((a) => ({
      addresses: [a],
      conditions: { ready: true, serving: true, terminating: false },
    })),
    ports: [{ name: 'http', port: o.port ?? 8080, protocol: 'TCP' }],
  } as KubeObject;
}

/** Ingress `ing-i` routing `host` (default `hostOf(i)`) `/` to Service i, for an appliance class; optionally TLS. */
export function ingress(
  i: number,
  o: {
    cls?: ClassName;
    name?: string;
    host?: string;
    service?: string;
    tlsSecret?: string;
    annotations?: Record<string, string>;
  } = {},
): KubeObject {
  const host = o.host ?? hostOf(i);
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: {
      namespace: namespaceOf(i),
      name: o.name ?? `ing-${i}`,
      ...(o.annotations === undefined ? {} : { annotations: o.annotations }),
    },
    spec: {
      ingressClassName: CLASSES[o.cls ?? 'haproxy'].name,
      ...(o.tlsSecret === undefined ? {} : { tls: [{ hosts: [host], secretName: o.tlsSecret }] }),
      rules: [
        {
          host,
          http: {
            paths: [
              {
                path: '/',
                pathType: 'Prefix',
                backend: { service: { name: o.service ?? `svc-${i}`, port: { number: 80 } } },
              },
            ],
          },
        },
      ],
    },
  } as KubeObject;
}

/** A kubernetes.io/tls Secret with the given PEM material. */
export function tlsSecret(i: number, name: string, certPem: string, keyPem: string): KubeObject {
  const b64 = (s: string): string => Buffer.from(s).toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/tls',
    metadata: { namespace: namespaceOf(i), name },
    data: { 'tls.crt': b64(certPem), 'tls.key': b64(keyPem) },
  } as KubeObject;
}

/** Every object of a world of `n` Services (Service, EndpointSlice, Ingress each) after the three IngressClasses, in creation order. */
export function worldObjects(n: number, classOf: (i: number) => ClassName = () => 'haproxy'): KubeObject[] {
  const out: KubeObject[] = (Object.keys(CLASSES) as ClassName[]).map(ingressClass);
  for (let i = 0; i < n; i++) out.push(service(i), endpointSlice(i), ingress(i, { cls: classOf(i) }));
  return out;
}

/** A small deterministic PRNG (mulberry32): the same change sequence in every run. */
export function prng(seed: number): (m: number) => number {
  let s = seed;
  return (m) => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) % m;
  };
}
