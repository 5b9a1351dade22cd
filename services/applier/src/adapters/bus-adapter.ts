import type { NatsEventBus } from '@portolan/bus';
import { applySubject, driftSubject, objectsRefusedSubject, planSubject } from '@portolan/bus';
import {
  ApplyRecordedSchema,
  ApplyStatus as ProtoApplyStatus,
  DriftAction,
  DriftObservedSchema,
  ObjectsRefusedSchema,
  SnapshotCommittedSchema,
  create,
  fromBinary,
  timestampFromMs,
  toBinary,
} from '@portolan/proto';
import type { ObjectRef } from '@portolan/desired-state';
import type { ApplyStatus } from '../core/apply-outcome.ts';
import type { DriftReport } from '../core/drift-report.ts';
import type { AnnouncedSnapshot } from '../core/snapshot-store.ts';

const protoStatus: Readonly<Record<ApplyStatus, ProtoApplyStatus>> = {
  noop: ProtoApplyStatus.NOOP,
  succeeded: ProtoApplyStatus.SUCCEEDED,
  partial: ProtoApplyStatus.PARTIAL,
  failed: ProtoApplyStatus.FAILED,
  fenced: ProtoApplyStatus.FENCED,
  held: ProtoApplyStatus.UNSPECIFIED,
};

/** An apply as published on `apply.<appliance>`. */
export interface ApplyAnnouncement {
  readonly applyId: string;
  readonly snapshotId: string;
  readonly contentHash: string;
  readonly epoch: number;
  readonly leaderId: string;
  readonly status: ApplyStatus;
  readonly operations: number;
  readonly failedOperations: number;
  readonly durationMs: number;
  readonly finishedAt: Date;
}

export type { AnnouncedSnapshot };

/** The W3C trace headers of a message (the planner's commit span), or null when it carries none. */
function traceHeaders(h: { get(key: string): string } | undefined): Record<string, string> | null {
  const traceparent = h?.get('traceparent') ?? '';
  if (traceparent === '') return null;
  const tracestate = h?.get('tracestate') ?? '';
  return tracestate === '' ? { traceparent } : { traceparent, tracestate };
}

/** Publishes ApplyRecorded and DriftObserved, and follows SnapshotCommitted for one appliance. */
export class ApplierBus {
  private readonly bus: NatsEventBus;
  private readonly appliance: string;

  constructor(bus: NatsEventBus, appliance: string) {
    this.bus = bus;
    this.appliance = appliance;
  }

  /** Publishes ApplyRecorded (message id = apply id: a republish is deduplicated). */
  async applyRecorded(a: ApplyAnnouncement): Promise<void> {
    const msg = create(ApplyRecordedSchema, {
      appliance: this.appliance,
      applyId: BigInt(a.applyId),
      snapshotId: BigInt(a.snapshotId),
      contentHash: a.contentHash,
      epoch: BigInt(a.epoch),
      leaderId: a.leaderId,
      status: protoStatus[a.status],
      operations: a.operations,
      failedOperations: a.failedOperations,
      durationMs: BigInt(Math.round(a.durationMs)),
      finishedAt: timestampFromMs(a.finishedAt.getTime()),
    });
    await this.bus.publish(applySubject(this.appliance), toBinary(ApplyRecordedSchema, msg), {
      msgId: `apply:${this.appliance}:${a.applyId}`,
    });
  }

  /**
   * Publishes the objects the appliance refused in a snapshot's configuration into the kube stream (the planner
   * folds it in order with the observations; one message per snapshot: a republish is deduplicated).
   */
  async objectsRefused(
    snapshotId: string,
    objects: readonly { ref: ObjectRef; message: string }[],
    at: Date,
  ): Promise<void> {
    const msg = create(ObjectsRefusedSchema, {
      appliance: this.appliance,
      snapshotId: BigInt(snapshotId),
      refusedAt: timestampFromMs(at.getTime()),
      objects: objects.map((o) => ({
        cluster: o.ref.cluster,
        kind: o.ref.kind,
        namespace: o.ref.namespace,
        name: o.ref.name,
        message: o.message.slice(0, 1000),
      })),
    });
    await this.bus.publish(objectsRefusedSubject, toBinary(ObjectsRefusedSchema, msg), {
      msgId: `refused:${this.appliance}:${snapshotId}`,
    });
  }

  /** Publishes DriftObserved for a recorded drift observation. */
  async driftObserved(
    observationId: string,
    snapshotId: string | null,
    report: DriftReport,
    action: 'corrected' | 'reported',
    at: Date,
  ): Promise<void> {
    const msg = create(DriftObservedSchema, {
      appliance: this.appliance,
      snapshotId: BigInt(snapshotId ?? 0),
      objects: [...report.objects],
      before: new TextEncoder().encode(JSON.stringify(report.before)),
      after: new TextEncoder().encode(JSON.stringify(report.after)),
      action: action === 'corrected' ? DriftAction.CORRECTED : DriftAction.REPORTED,
      observedAt: timestampFromMs(at.getTime()),
    });
    await this.bus.publish(driftSubject(this.appliance), toBinary(DriftObservedSchema, msg), {
      msgId: `drift:${this.appliance}:${observationId}`,
    });
  }

  /**
   * Calls `onSnapshot` with the snapshot id of every SnapshotCommitted on `plan.<appliance>` until `signal` aborts,
   * with the new pieces the planner attached (unverified: the snapshot reader checks each against its id) and the
   * snapshot's header as announced.
   */
  followSnapshots(
    onSnapshot: (snapshotId: string, pieces?: ReadonlyMap<string, Uint8Array>, header?: AnnouncedSnapshot) => void,
    signal: AbortSignal,
  ): void {
    const sub = this.bus.connection.subscribe(this.bus.subject(planSubject(this.appliance)));
    signal.addEventListener('abort', () => sub.unsubscribe(), { once: true });
    void (async () => {
      for await (const m of sub) {
        let committed;
        try {
          committed = fromBinary(SnapshotCommittedSchema, m.data);
        } catch {
          // Any decoding failure is the same case: a message we cannot read still says "something changed", and the
          // head read that follows finds the truth in the store.
          onSnapshot('');
          continue;
        }
        const createdAt =
          committed.createdAt === undefined
            ? new Date()
            : new Date(Number(committed.createdAt.seconds) * 1000 + Math.floor(committed.createdAt.nanos / 1e6));
        onSnapshot(String(committed.snapshotId), new Map(Object.entries(committed.newPieces)), {
          id: String(committed.snapshotId),
          hash: committed.contentHash,
          held: committed.held,
          createdAt,
          traceContext: traceHeaders(m.headers),
        });
      }
    })();
  }
}
