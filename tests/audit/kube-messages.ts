import {
  heartbeatMessage,
  kubeEventMessage,
  listMarkerMessages,
  prepareObject,
  watchedKind,
  type WatchEventType,
} from '@portolan/watcher';
import type { KubeKind } from '@portolan/kube-model';
import { sealSecretData, type FleetKey } from '@portolan/secret-envelope';
import { KubeEventSchema, KubeListMarkerSchema, toBinary, WatcherHeartbeatSchema } from '@portolan/proto';

/** One message as the watcher publishes it: logical subject, dedup id, protobuf bytes, trace header. */
export interface OutboundKubeMessage {
  readonly subject: string;
  readonly msgId: string;
  readonly data: Uint8Array;
  readonly traceId: string;
}

let counter = 0;
const traceId = (): string => (++counter).toString(16).padStart(32, 'a');

/**
 * A Kubernetes watch event exactly as the watcher publishes it (its own trimming, Secret sealing and message
 * builder), so the archive the audit reads holds what production would hold.
 */
export function kubeMessage(
  cluster: string,
  kind: KubeKind,
  type: WatchEventType,
  object: Record<string, unknown>,
  key: FleetKey,
  observedAtMs: number,
): OutboundKubeMessage {
  const prepared = prepareObject(kind, object, {
    maxObjectBytes: 512 * 1024,
    seal: (data) => sealSecretData(key, data),
  });
  if (!prepared.ok) throw new Error(`fixture object refused by the watcher: ${prepared.reason}`);
  const m = kubeEventMessage(cluster, watchedKind(kind), type, prepared.identity, prepared.bytes, {
    generation: 1n,
    observedAtMs,
    omittedReason: prepared.omittedReason,
  });
  return {
    subject: m.subject,
    msgId: m.msgId,
    data: toBinary(KubeEventSchema, m.message as never),
    traceId: traceId(),
  };
}

/**
 * The list markers a watcher publishes after its initial list of every kind (keys present per kind): the planner
 * records no snapshot before every kind of every served cluster has completed a list (it never plans from a partial world).
 */
export function listMarkers(
  cluster: string,
  keysByKind: Readonly<Partial<Record<KubeKind, readonly string[]>>>,
  listResourceVersion: string,
  observedAtMs: number,
): OutboundKubeMessage[] {
  const kinds: readonly KubeKind[] = ['Ingress', 'IngressClass', 'Service', 'EndpointSlice', 'Secret', 'Node'];
  return kinds.flatMap((kind) =>
    listMarkerMessages(cluster, watchedKind(kind), listResourceVersion, 1n, [keysByKind[kind] ?? []], observedAtMs).map(
      (m) => ({
        subject: m.subject,
        msgId: m.msgId,
        data: toBinary(KubeListMarkerSchema, m.message as never),
        traceId: traceId(),
      }),
    ),
  );
}

/** A synced watcher heartbeat for every watched kind. */
export function heartbeat(cluster: string, sentAtMs: number): OutboundKubeMessage {
  const kinds = (['Ingress', 'IngressClass', 'Service', 'EndpointSlice', 'Secret'] as const).map((k) => ({
    kind: watchedKind(k),
    ageMs: 50,
    synced: true,
    stale: false,
    generation: 1n,
  }));
  const m = heartbeatMessage(cluster, 'watcher-1', kinds, sentAtMs);
  return { subject: m.subject, msgId: m.msgId, data: toBinary(WatcherHeartbeatSchema, m.message), traceId: traceId() };
}

/** Kubernetes API objects for the scenario, with increasing resourceVersions. */
export class KubeObjects {
  private rv = 1000;
  private readonly created = '2026-01-01T00:00:00Z';

  private meta(
    kind: string,
    namespace: string,
    name: string,
    extra: Record<string, unknown> = {},
  ): Record<string, unknown> {
    return {
      namespace,
      name,
      uid: `uid-${kind}-${namespace}-${name}`,
      resourceVersion: String(++this.rv),
      creationTimestamp: this.created,
      ...extra,
    };
  }

  ingressClass(name: string): Record<string, unknown> {
    return {
      kind: 'IngressClass',
      apiVersion: 'networking.k8s.io/v1',
      metadata: this.meta('IngressClass', '', name),
      spec: { controller: 'portolan.dev/ingress-controller' },
    };
  }

  service(namespace: string, name: string, port: number): Record<string, unknown> {
    return {
      kind: 'Service',
      apiVersion: 'v1',
      metadata: this.meta('Service', namespace, name),
      spec: { type: 'ClusterIP', ports: [{ name: 'http', port, targetPort: 8080, protocol: 'TCP' }] },
    };
  }

  slice(namespace: string, name: string, service: string, addresses: readonly string[]): Record<string, unknown> {
    return {
      kind: 'EndpointSlice',
      apiVersion: 'discovery.k8s.io/v1',
      metadata: this.meta('EndpointSlice', namespace, name, { labels: { 'kubernetes.io/service-name': service } }),
      addressType: 'IPv4',
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      endpoints: addresses.map((a) => ({
        addresses: [a],
        conditions: { ready: true, serving: true, terminating: false },
      })),
    };
  }

  tlsSecret(namespace: string, name: string, certificatePem: string, keyPem: string): Record<string, unknown> {
    return {
      kind: 'Secret',
      apiVersion: 'v1',
      type: 'kubernetes.io/tls',
      metadata: this.meta('Secret', namespace, name),
      data: {
        'tls.crt': Buffer.from(certificatePem).toString('base64'),
        'tls.key': Buffer.from(keyPem).toString('base64'),
      },
    };
  }

  ingress(
    namespace: string,
    name: string,
    host: string,
    path: string,
    service: string,
    port: number,
    tlsSecret?: string,
  ): Record<string, unknown> {
    return {
      kind: 'Ingress',
      apiVersion: 'networking.k8s.io/v1',
      metadata: this.meta('Ingress', namespace, name),
      spec: {
        ingressClassName: 'portolan',
        rules: [
          {
            host,
            http: {
              paths: [{ path, pathType: 'Prefix', backend: { service: { name: service, port: { number: port } } } }],
            },
          },
        ],
        ...(tlsSecret === undefined ? {} : { tls: [{ hosts: [host], secretName: tlsSecret }] }),
      },
    };
  }

  /** The same object again with a new resourceVersion (a MODIFIED or DELETED observation). */
  touch(object: Record<string, unknown>): Record<string, unknown> {
    return {
      ...object,
      metadata: { ...(object['metadata'] as Record<string, unknown>), resourceVersion: String(++this.rv) },
    };
  }
}
