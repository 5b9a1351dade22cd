import type { KubeKind } from '@portolan/desired-state';
import {
  fromBinary,
  KubeEventSchema,
  KubeEventType,
  KubeKind as ProtoKind,
  KubeListMarkerSchema,
  timestampMs,
  WatcherHeartbeatSchema,
} from '@portolan/proto';

/** One archived row as the audit reads it: stream sequence, subject, protobuf payload, time and trace. */
export interface ArchivedRow {
  readonly seq: number;
  readonly subject: string;
  readonly payload: Uint8Array;
  readonly receivedAt: Date;
  readonly traceId: string | null;
}

/** A Kubernetes object change as archived: identity, resourceVersion and what happened. */
export interface ObjectChange {
  readonly type: 'event';
  readonly seq: number;
  readonly at: string;
  readonly traceId: string | null;
  readonly cluster: string;
  readonly kind: KubeKind;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion: string;
  readonly event: 'ADDED' | 'MODIFIED' | 'DELETED';
  /** EndpointSlices only: the Service they belong to (`kubernetes.io/service-name`). */
  readonly service: string | null;
}

/** What one archived message was. Markers and heartbeats are inputs too, but not object changes. */
export type ArchivedChange =
  | ObjectChange
  | {
      readonly type: 'marker';
      readonly seq: number;
      readonly at: string;
      readonly cluster: string;
      readonly kind: KubeKind;
      readonly generation: number;
      readonly keys: number;
      readonly chunk: string;
    }
  | {
      readonly type: 'heartbeat';
      readonly seq: number;
      readonly at: string;
      readonly cluster: string;
      readonly sentAt: string | null;
      readonly synced: boolean;
      readonly watcherId: string;
    }
  | { readonly type: 'unreadable'; readonly seq: number; readonly at: string; readonly reason: string };

const KINDS: Readonly<Record<number, KubeKind>> = {
  [ProtoKind.INGRESS]: 'Ingress',
  [ProtoKind.INGRESS_CLASS]: 'IngressClass',
  [ProtoKind.SERVICE]: 'Service',
  [ProtoKind.ENDPOINT_SLICE]: 'EndpointSlice',
  [ProtoKind.SECRET]: 'Secret',
  [ProtoKind.NODE]: 'Node',
  [ProtoKind.NAMESPACE]: 'Namespace',
  [ProtoKind.GATEWAY_CLASS]: 'GatewayClass',
  [ProtoKind.GATEWAY]: 'Gateway',
  [ProtoKind.HTTP_ROUTE]: 'HTTPRoute',
  [ProtoKind.TLS_ROUTE]: 'TLSRoute',
  [ProtoKind.REFERENCE_GRANT]: 'ReferenceGrant',
};
const EVENTS: Readonly<Record<number, ObjectChange['event']>> = {
  [KubeEventType.ADDED]: 'ADDED',
  [KubeEventType.MODIFIED]: 'MODIFIED',
  [KubeEventType.DELETED]: 'DELETED',
};
const utf8 = new TextDecoder('utf-8', { fatal: false });

/**
 * Decodes an archived bus message by its subject (`kube.<cluster>.<kind>`, `….list`, `kube.<cluster>.heartbeat`).
 * The object itself is not kept (Secret data is sealed anyway): identity, resourceVersion and, for
 * EndpointSlices, the owning Service are what the audit shows. Undecodable rows are data, not exceptions.
 */
export function decodeArchivedChange(row: ArchivedRow): ArchivedChange {
  const at = row.receivedAt.toISOString();
  try {
    if (row.subject.endsWith('.heartbeat')) {
      const h = fromBinary(WatcherHeartbeatSchema, row.payload);
      return {
        type: 'heartbeat',
        seq: row.seq,
        at,
        cluster: h.cluster,
        sentAt: h.sentAt ? new Date(timestampMs(h.sentAt)).toISOString() : null,
        synced: h.kinds.length > 0 && h.kinds.every((k) => k.synced),
        watcherId: h.watcherId,
      };
    }
    if (row.subject.endsWith('.list')) {
      const m = fromBinary(KubeListMarkerSchema, row.payload);
      const kind = KINDS[m.kind];
      if (kind === undefined)
        return { type: 'unreadable', seq: row.seq, at, reason: `list marker of unknown kind ${m.kind}` };
      return {
        type: 'marker',
        seq: row.seq,
        at,
        cluster: m.cluster,
        kind,
        generation: Number(m.listGeneration),
        keys: m.keys.length,
        chunk: `${m.chunkIndex + 1}/${m.chunkCount}`,
      };
    }
    const e = fromBinary(KubeEventSchema, row.payload);
    const kind = KINDS[e.kind];
    const event = EVENTS[e.type];
    if (kind === undefined || event === undefined)
      return { type: 'unreadable', seq: row.seq, at, reason: `event of unknown kind ${e.kind} or type ${e.type}` };
    return {
      type: 'event',
      seq: row.seq,
      at,
      traceId: row.traceId,
      cluster: e.cluster,
      kind,
      namespace: e.namespace,
      name: e.name,
      uid: e.uid,
      resourceVersion: e.resourceVersion,
      event,
      service: kind === 'EndpointSlice' ? serviceOfSlice(e.object) : null,
    };
  } catch (error) {
    // An archived message that does not decode is shown as unreadable (bad input is data), never a crash of the report.
    return {
      type: 'unreadable',
      seq: row.seq,
      at,
      reason: `cannot decode ${row.subject}: ${(error as Error).message}`,
    };
  }
}

/** `cluster/Kind/namespace/name` (namespace omitted for cluster-scoped kinds): how the audit names an object. */
export function formatObject(o: {
  readonly cluster: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}): string {
  return o.namespace === '' ? `${o.cluster}/${o.kind}/${o.name}` : `${o.cluster}/${o.kind}/${o.namespace}/${o.name}`;
}

function serviceOfSlice(object: Uint8Array): string | null {
  if (object.length === 0) return null;
  try {
    const parsed = JSON.parse(utf8.decode(object)) as { metadata?: { labels?: Record<string, string> } };
    return parsed.metadata?.labels?.['kubernetes.io/service-name'] ?? null;
  } catch (e) {
    // A slice whose stored object is not JSON (SyntaxError) names no Service.
    if (e instanceof SyntaxError) return null;
    throw e;
  }
}
