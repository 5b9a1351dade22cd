import type { BusMessage, NatsEventBus } from '@portolan/bus';
import { planSubject } from '@portolan/bus';
import { create, toBinary, timestampFromMs, SnapshotCommittedSchema } from '@portolan/proto';
import type { DesiredState } from '@portolan/desired-state';
import type { Logger } from '@portolan/telemetry';
import { decodeBusMessage, type PlannerInput } from './core/decode-bus-message.ts';
import { HeadMovedError, type ArchivedEvent, type NewSnapshot, type PgPlannerStore, type SnapshotHead } from './adapters/pg-planner-store.ts';
import type { PlannerMetrics } from './planner-metrics.ts';

/** The pure planning core as the service drives it: fold inputs, then plan only what they touched. */
export interface PlanningCore {
  /** Folds one decoded input (event, list marker, heartbeat) observed at `observedAtMs`. */
  applyInput(input: PlannerInput): void;
  /** Desired states of the appliances whose inputs changed since the last call (all of them after a rebuild). */
  planDirty(): ReadonlyMap<string, DesiredState>;
}

/** Turns one desired state into stored pieces and its content hash; decides holds against the appliance's baseline. */
export interface SnapshotEncoding {
  encode(desired: DesiredState): { contentHash: string; rootHash: string; pieces: ReadonlyMap<string, Uint8Array> };
  /** Why this plan must be held (safety hold, pin), or null. `baseline` is the last snapshot allowed to apply. */
  holdReason(appliance: string, desired: DesiredState): string | null;
  /** Remembers an unheld snapshot as the appliance's new baseline. */
  accept(appliance: string, desired: DesiredState): void;
}

/** Configuration the service needs beyond its collaborators. */
export interface PlannerServiceOptions {
  readonly store: PgPlannerStore;
  readonly bus: NatsEventBus | null;
  readonly core: PlanningCore;
  readonly encoding: SnapshotEncoding;
  readonly fleetConfigHash: string;
  readonly plannerVersion: string;
  readonly log: Logger;
  readonly metrics: PlannerMetrics | null;
}

/**
 * The planner's shell: folds kube-stream messages strictly in sequence order (S+1 after S, gaps filled by direct
 * get), plans the appliances they touched, and commits archive + snapshots + position in one transaction before
 * acking. On start it rebuilds its world from the Postgres archive, so a restart never needs the broker's history.
 */
export class PlannerService {
  private readonly o: PlannerServiceOptions;
  private position = 0;
  private heads = new Map<string, SnapshotHead>();

  constructor(options: PlannerServiceOptions) {
    this.o = options;
  }

  /** Committed stream position. */
  get committedPosition(): number {
    return this.position;
  }

  /** Rebuilds the world from the archive up to the committed position, and loads the heads. */
  async recover(): Promise<{ replayed: number }> {
    this.position = await this.o.store.position();
    this.heads = await this.o.store.heads();
    let replayed = 0;
    for await (const e of this.o.store.archive(0, this.position)) {
      this.o.core.applyInput(decodeBusMessage(e.subject, e.payload));
      replayed++;
    }
    // Consume the dirty set of the rebuild: the heads already hold its result.
    for (const [appliance, desired] of this.o.core.planDirty()) this.o.encoding.accept(appliance, desired);
    await this.checkBrokerHistory();
    return { replayed };
  }

  /** FM-8: a stream whose history is behind what we committed lost acknowledged messages. */
  private async checkBrokerHistory(): Promise<void> {
    if (this.o.bus === null) return;
    const { lastSeq } = await this.o.bus.kubeStreamBounds();
    if (lastSeq < this.position) {
      this.o.metrics?.brokerHistoryRegressed.inc();
      this.o.log.error({ streamLastSeq: lastSeq, committed: this.position }, 'broker_history_regressed: the stream is behind the committed position; watchers must relist');
    }
  }

  /** Processes one delivered batch; resolves once its effects are committed (then the bus acks it). */
  async handleBatch(batch: readonly BusMessage[]): Promise<void> {
    const ordered = await this.contiguous(batch);
    if (ordered.length === 0) return;
    const started = performance.now();
    const events: ArchivedEvent[] = [];
    for (const m of ordered) {
      const input = decodeBusMessage(m.subject, m.data);
      if (input.type === 'unreadable') this.o.log.warn({ seq: m.streamSeq, reason: input.reason }, 'unreadable message archived and skipped');
      this.o.core.applyInput(input);
      events.push(archived(m, input));
    }
    const planned = this.o.core.planDirty();
    const snapshots: NewSnapshot[] = [];
    const lastSeq = ordered[ordered.length - 1]!.streamSeq;
    for (const [appliance, desired] of [...planned].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const encoded = this.o.encoding.encode(desired);
      const head = this.heads.get(appliance);
      // Identical input never creates a new snapshot (FM-6, FM-9).
      if (head !== undefined && head.contentHash === encoded.contentHash) continue;
      const hold = this.o.encoding.holdReason(appliance, desired);
      snapshots.push({
        appliance, contentHash: encoded.contentHash, rootHash: encoded.rootHash, pieces: encoded.pieces, parentId: head?.snapshotId ?? null,
        lastEventSeq: lastSeq, fleetConfigHash: this.o.fleetConfigHash, plannerVersion: this.o.plannerVersion, held: hold !== null, holdReason: hold,
        traceId: ordered[ordered.length - 1]!.headers.traceparent?.split('-')[1] ?? null,
      });
      if (hold === null) this.o.encoding.accept(appliance, desired);
    }
    try {
      const ids = await this.o.store.commit({ fromPosition: this.position, toPosition: lastSeq, events, snapshots });
      this.position = lastSeq;
      snapshots.forEach((s, i) => this.heads.set(s.appliance, { appliance: s.appliance, snapshotId: ids[i]!, contentHash: s.contentHash }));
      this.o.metrics?.observeBatch(ordered.length, snapshots.length, performance.now() - started);
      await this.announce(snapshots, ids);
    } catch (e) {
      if (!(e instanceof HeadMovedError)) throw e;
      // Another planner committed first: our fold is idempotent, so reload where it got to and carry on.
      this.o.log.info({ reason: e.message }, 'another planner committed first; reloading position and heads');
      this.position = await this.o.store.position();
      this.heads = await this.o.store.heads();
    }
  }

  /** The messages to fold, in order from position+1: already-committed ones dropped, gaps filled from the stream. */
  private async contiguous(batch: readonly BusMessage[]): Promise<BusMessage[]> {
    const bySeq = new Map(batch.filter((m) => m.streamSeq > this.position).map((m) => [m.streamSeq, m]));
    if (bySeq.size === 0) return [];
    const last = Math.max(...bySeq.keys());
    const out: BusMessage[] = [];
    for (let seq = this.position + 1; seq <= last; seq++) {
      let m = bySeq.get(seq) ?? null;
      if (m === null && this.o.bus !== null) m = await this.o.bus.getKubeMessage(seq);
      if (m === null) {
        this.o.metrics?.brokerHistoryRegressed.inc();
        this.o.log.error({ seq }, 'broker_history_regressed: a sequence is missing from the stream; watchers must relist to repair');
        continue;
      }
      out.push(m);
    }
    return out;
  }

  private async announce(snapshots: readonly NewSnapshot[], ids: readonly string[]): Promise<void> {
    if (this.o.bus === null) return;
    for (const [i, s] of snapshots.entries()) {
      const msg = create(SnapshotCommittedSchema, {
        appliance: s.appliance, snapshotId: BigInt(ids[i]!), contentHash: s.contentHash, parentHash: '', lastEventSeq: BigInt(s.lastEventSeq),
        fleetConfigHash: s.fleetConfigHash, plannerVersion: s.plannerVersion, createdAt: timestampFromMs(Date.now()), held: s.held, holdReason: s.holdReason ?? '',
      });
      await this.o.bus.publish(planSubject(s.appliance), toBinary(SnapshotCommittedSchema, msg), { msgId: `snap:${s.appliance}:${ids[i]}` }).catch((e: unknown) => {
        // The applier also polls heads: a lost notification delays, never loses, an apply.
        this.o.log.warn({ err: (e as Error).message, appliance: s.appliance }, 'could not announce snapshot');
      });
    }
  }
}

function archived(m: BusMessage, input: PlannerInput): ArchivedEvent {
  const base = { seq: m.streamSeq, subject: m.subject, msgId: m.headers['Nats-Msg-Id'] ?? `seq:${m.streamSeq}`, payload: m.data, traceId: m.headers.traceparent?.split('-')[1] ?? null };
  switch (input.type) {
    case 'event':
      return { ...base, cluster: input.event.cluster, kind: input.event.kind, objectKey: input.namespace === '' ? input.name : `${input.namespace}/${input.name}`, eventType: input.event.type, receivedAt: new Date(input.observedAtMs || Date.now()) };
    case 'marker':
      return { ...base, cluster: input.marker.cluster, kind: input.marker.kind, objectKey: '', eventType: 'LIST_MARKER', receivedAt: new Date(input.observedAtMs || Date.now()) };
    case 'heartbeat':
      return { ...base, cluster: input.cluster, kind: 'Heartbeat', objectKey: '', eventType: 'HEARTBEAT', receivedAt: new Date(input.sentAtMs || Date.now()) };
    case 'unreadable':
      return { ...base, cluster: m.subject.split('.')[1] ?? '', kind: 'Unreadable', objectKey: '', eventType: 'UNREADABLE', receivedAt: new Date() };
  }
}
