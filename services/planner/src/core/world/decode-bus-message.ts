import {
  fromBinary,
  timestampMs,
  HoldApprovedSchema,
  ObjectsRefusedSchema,
  SelectionHeldSchema,
  KubeEventSchema,
  KubeListMarkerSchema,
  WatcherHeartbeatSchema,
  KubeKind as ProtoKind,
  KubeEventType,
} from '@portolan/proto';
import type { KubeKind, KubeListMarker, KubeWatchEvent, StateDigest } from '@portolan/kube-model';
import { readKubeEvent, type KubeEventFields } from './kube-event-wire.ts';

/** What one message of the kube stream means to the planner. */
export type PlannerInput =
  | {
      readonly type: 'event';
      readonly event: KubeWatchEvent;
      readonly namespace: string;
      readonly name: string;
      readonly observedAtMs: number;
      readonly omittedReason: string;
    }
  | { readonly type: 'marker'; readonly marker: KubeListMarker; readonly observedAtMs: number }
  | {
      readonly type: 'heartbeat';
      readonly cluster: string;
      readonly sentAtMs: number;
      readonly synced: boolean;
      readonly watcherId: string;
      /** The kinds this watcher reported settled, with the digest of what it published. */
      readonly settled: readonly SettledKind[];
    }
  | { readonly type: 'approval'; readonly approval: HoldApproval; readonly approvedAtMs: number }
  | { readonly type: 'refused'; readonly refusal: ApplianceRefusal; readonly refusedAtMs: number }
  | { readonly type: 'selection-held'; readonly held: SelectionHold; readonly heldAtMs: number }
  | { readonly type: 'unreadable'; readonly reason: string };

/** An operator's approval of the removals held for one appliance's clusters. */
export interface HoldApproval {
  readonly appliance: string;
  readonly approvedBy: string;
  readonly reason: string;
  readonly approvalId: string;
}

/** The kinds an appliance's refusal can leave out of its plan. */
export type RefusableKind = 'Ingress' | 'Secret' | 'HTTPRoute';

/** Objects an appliance refused (its own check, narrowed by bisection), with the appliance's message for each. */
export interface ApplianceRefusal {
  readonly appliance: string;
  readonly snapshotId: string;
  readonly objects: readonly {
    readonly cluster: string;
    readonly kind: RefusableKind;
    readonly namespace: string;
    readonly name: string;
    readonly message: string;
  }[];
}

/** Ingresses a fleet-config change would stop serving on an appliance, held until approved. */
export interface SelectionHold {
  readonly appliance: string;
  readonly ingresses: readonly { readonly cluster: string; readonly namespace: string; readonly name: string }[];
  readonly reason: string;
}

const kinds: Readonly<Record<number, KubeKind>> = {
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
const eventTypes = {
  [KubeEventType.ADDED]: 'ADDED',
  [KubeEventType.MODIFIED]: 'MODIFIED',
  [KubeEventType.DELETED]: 'DELETED',
} as const;

/**
 * Decodes a kube-stream message by its subject (`kube.<cluster>.<kind>`, `….list`, `kube.<cluster>.heartbeat`).
 * A message that cannot be decoded is an input too ('unreadable'): it is archived and skipped, never a crash.
 */
export function decodeBusMessage(subject: string, data: Uint8Array): PlannerInput {
  try {
    const decode = DECODERS.find(([suffix]) => subject.endsWith(suffix))?.[1] ?? decodeKubeEvent;
    return decode(data);
  } catch (error) {
    // Whatever the decoders throw means these bytes are not a message this planner can read: that is the named case
    // 'unreadable', and poison input must never stop the fold.
    return { type: 'unreadable', reason: `cannot decode ${subject}: ${(error as Error).message}` };
  }
}

/** Decoders by subject suffix, tried in order; a subject with none of them is a watch event. */
const DECODERS: readonly (readonly [string, (data: Uint8Array) => PlannerInput])[] = [
  ['.approval', decodeApproval],
  ['.selection-held', decodeSelectionHeld],
  ['.refused', decodeRefusal],
  ['.heartbeat', decodeHeartbeat],
  ['.list', decodeListMarker],
];

/** An operator's approval of held removals. */
function decodeApproval(data: Uint8Array): PlannerInput {
  const a = fromBinary(HoldApprovedSchema, data);
  return {
    type: 'approval',
    approval: { appliance: a.appliance, approvedBy: a.approvedBy, reason: a.reason, approvalId: a.approvalId },
    approvedAtMs: a.approvedAt ? timestampMs(a.approvedAt) : 0,
  };
}

/** Ingresses a fleet-config change would drop, held selected. */
function decodeSelectionHeld(data: Uint8Array): PlannerInput {
  const h = fromBinary(SelectionHeldSchema, data);
  const ingresses = h.ingresses.flatMap((k) => {
    const [cluster = '', namespace = '', name = ''] = k.split('/');
    return cluster === '' || name === '' ? [] : [{ cluster, namespace, name }];
  });
  return {
    type: 'selection-held',
    held: { appliance: h.appliance, ingresses, reason: h.reason },
    heldAtMs: h.heldAt ? timestampMs(h.heldAt) : 0,
  };
}

/** Objects an appliance refused (Ingresses, Secrets and HTTPRoutes only). */
function decodeRefusal(data: Uint8Array): PlannerInput {
  const r = fromBinary(ObjectsRefusedSchema, data);
  const objects = r.objects.flatMap((o): ApplianceRefusal['objects'][number][] => {
    const kind = o.kind === 'Ingress' || o.kind === 'Secret' || o.kind === 'HTTPRoute' ? o.kind : null;
    return kind === null
      ? []
      : [{ cluster: o.cluster, kind, namespace: o.namespace, name: o.name, message: o.message }];
  });
  return {
    type: 'refused',
    refusal: { appliance: r.appliance, snapshotId: String(r.snapshotId), objects },
    refusedAtMs: r.refusedAt ? timestampMs(r.refusedAt) : 0,
  };
}

/** A kind a watcher reported settled: everything it published of the kind was acknowledged before the heartbeat. */
export interface SettledKind {
  readonly kind: KubeKind;
  readonly digest: StateDigest;
}

/** A watcher's heartbeat: synced when every kind it watches is. */
function decodeHeartbeat(data: Uint8Array): PlannerInput {
  const h = fromBinary(WatcherHeartbeatSchema, data);
  const settled: SettledKind[] = [];
  for (const k of h.kinds) {
    const kind = kinds[k.kind];
    if (k.settled && kind !== undefined)
      settled.push({ kind, digest: { digest: k.stateDigest, count: Number(k.objectCount) } });
  }
  return {
    type: 'heartbeat',
    cluster: h.cluster,
    sentAtMs: h.sentAt ? timestampMs(h.sentAt) : 0,
    synced: h.kinds.length > 0 && h.kinds.every((k) => k.synced),
    watcherId: h.watcherId,
    settled,
  };
}

/** One chunk of a list marker. */
function decodeListMarker(data: Uint8Array): PlannerInput {
  const m = fromBinary(KubeListMarkerSchema, data);
  const kind = kinds[m.kind];
  if (kind === undefined) return { type: 'unreadable', reason: `list marker of unknown kind ${m.kind}` };
  const observedAtMs = m.observedAt ? timestampMs(m.observedAt) : 0;
  return {
    type: 'marker',
    marker: {
      cluster: m.cluster,
      kind,
      generation: Number(m.listGeneration),
      resourceVersion: m.listResourceVersion,
      chunkIndex: m.chunkIndex,
      chunkCount: m.chunkCount,
      keys: m.keys,
      observedAtMs,
    },
    observedAtMs,
  };
}

/** A watch event (every subject without a suffix above): an object missing from it was too large to carry. */
function decodeKubeEvent(data: Uint8Array): PlannerInput {
  return kubeEventInput(readKubeEvent(data) ?? genericKubeEvent(data));
}

/** A KubeEvent through the generic decoder, for the encodings `readKubeEvent` leaves to it. */
function genericKubeEvent(data: Uint8Array): KubeEventFields {
  const e = fromBinary(KubeEventSchema, data);
  return { ...e, listGeneration: Number(e.listGeneration), observedAtMs: e.observedAt ? timestampMs(e.observedAt) : 0 };
}

function kubeEventInput(e: KubeEventFields): PlannerInput {
  const kind = kinds[e.kind];
  const type = eventTypes[e.type as keyof typeof eventTypes];
  if (kind === undefined || type === undefined)
    return { type: 'unreadable', reason: `event of unknown kind ${e.kind} or type ${e.type}` };
  const object =
    e.object.length === 0
      ? placeholder(e.namespace, e.name, e.uid, e.resourceVersion)
      : (JSON.parse(utf8.decode(e.object)) as unknown);
  return {
    type: 'event',
    event: {
      cluster: e.cluster,
      kind,
      type,
      object,
      generation: e.listGeneration,
      ...(e.noticedByRelist ? { noticedByRelist: true } : {}),
    },
    namespace: e.namespace,
    name: e.name,
    observedAtMs: e.observedAtMs,
    omittedReason: e.omittedReason,
  };
}

const utf8 = new TextDecoder();

/** An object the watcher could not carry (too large): identity only, so the planner can reject it by name. */
function placeholder(namespace: string, name: string, uid: string, resourceVersion: string): unknown {
  return { metadata: { namespace, name, uid, resourceVersion } };
}
