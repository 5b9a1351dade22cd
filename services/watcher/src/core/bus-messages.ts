import {
  create,
  timestampFromMs,
  KubeListMarkerSchema,
  WatcherHeartbeatSchema,
  KindFreshnessSchema,
  KubeEventType,
  type KubeEventSchema,
  type MessageShape,
} from '@portolan/proto';
import {
  kubeEventMsgId,
  kubeEventSubject,
  kubeListMarkerMsgId,
  kubeListMarkerSubject,
  heartbeatSubject,
} from '@portolan/bus';
import { objectKey, type StateDigest } from '@portolan/kube-model';
import type { WatchedKind } from './watched-kinds.ts';
import type { ObservedObject } from './object-ledger.ts';
import type { KindFreshness } from './kind-freshness.ts';

/** A message ready for the publisher: where it goes, its dedup id, its ordering key, and its protobuf value. */
export type OutboundMessage =
  | {
      readonly type: 'event';
      readonly subject: string;
      readonly msgId: string;
      readonly orderKey: string;
      readonly message: MessageShape<typeof KubeEventSchema>;
    }
  | {
      readonly type: 'marker';
      readonly subject: string;
      readonly msgId: string;
      readonly orderKey: string;
      readonly message: MessageShape<typeof KubeListMarkerSchema>;
    };

/** Event types as the watch API names them. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

const EVENT_TYPES: Readonly<Record<WatchEventType, KubeEventType>> = {
  ADDED: KubeEventType.ADDED,
  MODIFIED: KubeEventType.MODIFIED,
  DELETED: KubeEventType.DELETED,
};

/**
 * A KubeEvent for one observation. The message id is a pure function of (cluster, uid, resourceVersion, type), so
 * the same observation published twice (restart, retry, second watcher) is one message. A republished one (`republish`:
 * a relist after the broker may have lost what it acknowledged) adds its list generation: a broker that lost a
 * message can still hold its id in the dedup window and would drop the copy as a duplicate. The planner folds the
 * same resourceVersion twice as one change.
 */
export function kubeEventMessage(
  cluster: string,
  kind: WatchedKind,
  type: WatchEventType,
  o: ObservedObject,
  object: Uint8Array,
  extra: {
    generation: bigint;
    observedAtMs: number;
    omittedReason: string;
    noticedByRelist?: boolean;
    republish?: boolean;
  },
): OutboundMessage {
  const msgId = kubeEventMsgId(cluster, o.uid, o.resourceVersion, type);
  return {
    type: 'event',
    subject: kubeEventSubject(cluster, kind.token),
    msgId: extra.republish === true ? `${msgId}:republished-${extra.generation}` : msgId,
    orderKey: `${kind.token}/${objectKey(o.namespace, o.name)}`,
    // A plain message literal (what `create` would return, without its generic field loop: one per event).
    message: {
      $typeName: 'portolan.v1.KubeEvent',
      cluster,
      kind: kind.protoKind,
      namespace: o.namespace,
      name: o.name,
      uid: o.uid,
      resourceVersion: o.resourceVersion,
      type: EVENT_TYPES[type],
      object,
      listGeneration: extra.generation,
      observedAt: timestampFromMs(extra.observedAtMs),
      omittedReason: extra.omittedReason,
      noticedByRelist: extra.noticedByRelist ?? false,
    },
  };
}

/**
 * The chunks of one list marker. Ids include the list generation, so a later list at
 * the same resourceVersion is never swallowed by the dedup window when its key set differs.
 */
export function listMarkerMessages(
  cluster: string,
  kind: WatchedKind,
  listResourceVersion: string,
  generation: bigint,
  chunks: readonly (readonly string[])[],
  observedAtMs: number,
): OutboundMessage[] {
  return chunks.map((keys, chunkIndex) => ({
    type: 'marker',
    subject: kubeListMarkerSubject(cluster, kind.token),
    msgId: kubeListMarkerMsgId(cluster, kind.token, `${listResourceVersion}.${generation}`, chunkIndex, chunks.length),
    orderKey: `${kind.token}/*`,
    message: create(KubeListMarkerSchema, {
      cluster,
      kind: kind.protoKind,
      listResourceVersion,
      listGeneration: generation,
      chunkIndex,
      chunkCount: chunks.length,
      keys: [...keys],
      observedAt: timestampFromMs(observedAtMs),
    }),
  }));
}

/** The heartbeat: per kind, age of the last event or bookmark and whether it is synced. */
export function heartbeatMessage(
  cluster: string,
  watcherId: string,
  kinds: readonly KindFreshness[],
  sentAtMs: number,
  states: ReadonlyMap<WatchedKind, SettledState> = new Map(),
): { subject: string; msgId: string; message: MessageShape<typeof WatcherHeartbeatSchema> } {
  return {
    subject: heartbeatSubject(cluster),
    msgId: `hb:${cluster}:${watcherId}:${sentAtMs}`,
    message: create(WatcherHeartbeatSchema, {
      cluster,
      watcherId,
      sentAt: timestampFromMs(sentAtMs),
      kinds: kinds.map((k) =>
        create(KindFreshnessSchema, {
          kind: k.kind.protoKind,
          lastEventAgeMs: BigInt(Math.max(0, Math.round(k.ageMs))),
          synced: k.synced,
          listGeneration: k.generation,
          ...settledFields(states.get(k.kind)),
        }),
      ),
    }),
  };
}

/** A kind's published state as the heartbeat reports it: settled when nothing of it is queued, unacked or listing. */
export interface SettledState {
  readonly settled: boolean;
  readonly digest: StateDigest;
}

function settledFields(s: SettledState | undefined): { settled: boolean; stateDigest: number; objectCount: bigint } {
  if (s === undefined || !s.settled) return { settled: false, stateDigest: 0, objectCount: 0n };
  return { settled: true, stateDigest: s.digest.digest, objectCount: BigInt(s.digest.count) };
}
