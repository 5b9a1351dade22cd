import { fleetConfigSchema, type ApplianceConfig, type ClusterConfig } from '@portolan/fleet-config';
import type { KubeKind, KubeWatchEvent } from '@portolan/kube-model';
import { profileFromConfig, type ApplianceProfile, type ClusterProfile } from '../core/translate/appliance-profile.ts';

/** Test builders for Kubernetes objects (API shape, before trimming) and fleet profiles. */

let rv = 1000;
/** A fresh, increasing resourceVersion. */
export function nextRv(): string {
  return String(++rv);
}

type Obj = Record<string, unknown>;

/** A minute offset from a fixed epoch, as an RFC 3339 timestamp: `at(0)` is older than `at(1)`. */
export function at(minute: number): string {
  return new Date(Date.UTC(2026, 0, 1, 0, minute, 0)).toISOString().replace('.000Z', 'Z');
}

/** Service backend `{ service: { name, port } }` by number or name. */
export function backend(service: string, port: number | string): Obj {
  return { service: { name: service, port: typeof port === 'number' ? { number: port } : { name: port } } };
}

/** One rule: host plus [path, pathType, service, port] tuples. */
export function rule(host: string | undefined, ...paths: [string, string, string, number | string][]): Obj {
  return {
    ...(host === undefined ? {} : { host }),
    http: { paths: paths.map(([path, pathType, svc, port]) => ({ path, pathType, backend: backend(svc, port) })) },
  };
}

/** An Ingress. */
export function ingress(o: {
  name: string;
  namespace?: string;
  created?: string;
  className?: string | null;
  annotations?: Record<string, string>;
  rules?: Obj[];
  tls?: { hosts?: string[]; secretName?: string }[];
  defaultBackend?: Obj;
}): Obj {
  return {
    kind: 'Ingress',
    metadata: {
      name: o.name,
      namespace: o.namespace ?? 'default',
      creationTimestamp: o.created ?? at(0),
      resourceVersion: nextRv(),
      uid: `uid-${o.name}`,
      ...(o.annotations ? { annotations: o.annotations } : {}),
    },
    spec: {
      ...(o.className === null ? {} : { ingressClassName: o.className ?? 'portolan' }),
      ...(o.rules ? { rules: o.rules } : {}),
      ...(o.tls ? { tls: o.tls } : {}),
      ...(o.defaultBackend ? { defaultBackend: o.defaultBackend } : {}),
    },
  };
}

/** An IngressClass. */
export function ingressClass(name: string, controller: string, isDefault = false, created = at(0)): Obj {
  return {
    kind: 'IngressClass',
    metadata: {
      name,
      creationTimestamp: created,
      resourceVersion: nextRv(),
      ...(isDefault ? { annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } } : {}),
    },
    spec: { controller },
  };
}

/** A Service with ports [name, port, nodePort?]. */
export function service(
  name: string,
  ports: [string | undefined, number, number?][],
  o: {
    namespace?: string;
    type?: string;
    externalTrafficPolicy?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    created?: string;
  } = {},
): Obj {
  return {
    kind: 'Service',
    metadata: {
      name,
      namespace: o.namespace ?? 'default',
      resourceVersion: nextRv(),
      creationTimestamp: o.created ?? at(0),
      ...(o.labels ? { labels: o.labels } : {}),
      ...(o.annotations ? { annotations: o.annotations } : {}),
    },
    spec: {
      type: o.type ?? 'ClusterIP',
      ...(o.externalTrafficPolicy ? { externalTrafficPolicy: o.externalTrafficPolicy } : {}),
      ports: ports.map(([n, port, nodePort]) => ({
        ...(n ? { name: n } : {}),
        port,
        protocol: 'TCP',
        targetPort: port + 8000,
        ...(nodePort ? { nodePort } : {}),
      })),
    },
  };
}

/** An endpoint: [address, ready?, serving?, terminating?, node?]. */
export type Ep = [string, boolean?, boolean?, boolean?, string?];

/** An EndpointSlice of a Service with one port. */
export function slice(
  name: string,
  svc: string,
  portName: string | undefined,
  port: number,
  endpoints: Ep[],
  o: { namespace?: string; addressType?: string } = {},
): Obj {
  return {
    kind: 'EndpointSlice',
    metadata: {
      name,
      namespace: o.namespace ?? 'default',
      resourceVersion: nextRv(),
      labels: { 'kubernetes.io/service-name': svc },
    },
    addressType: o.addressType ?? 'IPv4',
    ports: [{ ...(portName ? { name: portName } : {}), port, protocol: 'TCP' }],
    endpoints: endpoints.map(([address, ready = true, serving = ready, terminating = false, node]) => ({
      addresses: [address],
      conditions: { ready, serving, terminating },
      ...(node ? { nodeName: node } : {}),
    })),
  };
}

/** A Node with an InternalIP and a Ready status. */
export function node(name: string, ip: string, ready = true): Obj {
  return {
    kind: 'Node',
    metadata: { name, resourceVersion: nextRv() },
    status: {
      addresses: [{ type: 'InternalIP', address: ip }],
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
    },
  };
}

/** A sealed TLS Secret as the watcher publishes it. */
export function tlsSecret(
  name: string,
  fingerprint = 'ab'.repeat(32),
  o: { namespace?: string; type?: string; tls?: Obj } = {},
): Obj {
  return {
    kind: 'Secret',
    metadata: { name, namespace: o.namespace ?? 'default', resourceVersion: nextRv() },
    type: o.type ?? 'kubernetes.io/tls',
    data: {
      sealed: { keyId: 'k1', iv: 'aXY=', ciphertext: 'Y3Q=', tag: 'dGFn' },
      fingerprint,
      ...(o.tls ? { tls: o.tls } : {}),
    },
  };
}

/** Watch events (ADDED) for objects in one cluster. */
export function added(cluster: string, ...objects: Obj[]): KubeWatchEvent[] {
  return objects.map((object) => ({ cluster, kind: object['kind'] as KubeKind, type: 'ADDED', object }));
}

/** A validated fleet config with the given clusters and appliances (the rest is filler). */
export function fleet(
  clusters: Partial<ClusterConfig>[],
  appliances: Partial<ApplianceConfig>[],
): { clusters: ClusterConfig[]; appliances: ApplianceConfig[] } {
  const parsed = fleetConfigSchema.parse({
    version: 1,
    clusters,
    appliances,
    bus: { url: 'nats://127.0.0.1:4222' },
    store: { url: 'postgres://x' },
    leases: { redisUrl: 'redis://x' },
    secrets: { keyFile: 'k' },
  });
  return { clusters: parsed.clusters, appliances: parsed.appliances };
}

const SECTIONS = {
  haproxy: { haproxy: { configDir: 'd', masterSocket: 's', httpPort: 80, httpsPort: 443 } },
  vtm: {
    vtm: {
      url: 'https://vtm.example:9070',
      username: 'admin',
      passwordFile: 'p',
      defaultTrafficIpGroup: 'tip-default',
    },
  },
  loadmaster: { loadmaster: { url: 'https://lm.example', apiKeyFile: 'k', defaultAddress: '10.9.9.9' } },
} as const;

/** An appliance config entry for a driver with test defaults (controller `portolan.dev/ingress-controller`). */
export function appliance(
  name: string,
  driver: 'haproxy' | 'vtm' | 'loadmaster',
  extra: Partial<ApplianceConfig> = {},
): Partial<ApplianceConfig> {
  return { name, driver, ...SECTIONS[driver], ...extra } as Partial<ApplianceConfig>;
}

/** A single-cluster profile pair for stage tests. */
export function profiles(
  driver: 'haproxy' | 'vtm' | 'loadmaster',
  extra: Partial<ApplianceConfig> = {},
  clusterExtra: Partial<ClusterConfig> = {},
): { profile: ApplianceProfile; clusters: Map<string, ClusterProfile> } {
  const f = fleet([{ name: 'c1', ...clusterExtra }], [appliance('lb', driver, extra)]);
  return {
    profile: profileFromConfig(f.appliances[0]!),
    clusters: new Map(f.clusters.map((c) => [c.name, { name: c.name, weight: c.weight, namespaces: c.namespaces }])),
  };
}
