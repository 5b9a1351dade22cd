import type { BusMessage, NatsEventBus } from '@portolan/bus';
import { planSubject } from '@portolan/bus';
import { create, toBinary, timestampFromMs, SnapshotCommittedSchema } from '@portolan/proto';
import { publishConfigDrops } from './config-drops.ts';
import type { Logger, Tracer } from '@portolan/telemetry';
import { BatchTrace } from './batch-trace.ts';
import { decodeBusMessage } from './core/world/decode-bus-message.ts';
import { foldInput } from './core/fold-input.ts';
import { archivedEvent, inputTimeMs } from './archived-event.ts';
import { Planner, PLANNER_VERSION, type EngineFactory, type PlannerConfig } from './core/planner.ts';
import { encodeSnapshot } from '@portolan/snapshot';
import { SyncTracker } from './core/world/sync-tracker.ts';
import type { SnapshotLayout } from '@portolan/snapshot';
import {
  HeadMovedError,
  type ArchivedEvent,
  type CommittedSnapshot,
  type HoldRecord,
  type NewSnapshot,
  type PgPlannerStore,
  type SnapshotHead,
} from './adapters/pg-planner-store.ts';
import type { PlannerMetrics } from './planner-metrics.ts';
import { LostMessageAudit } from './lost-message-audit.ts';
import type { KubeKind, StateDigest } from '@portolan/kube-model';

/** What the planner service is wired with. */
export interface PlannerServiceOptions {
  readonly store: PgPlannerStore;
  readonly bus: NatsEventBus | null;
  readonly config: PlannerConfig;
  readonly fleetConfigHash: string;
  readonly log: Logger;
  readonly metrics: PlannerMetrics | null;
  /**
   * The snapshot layout to write (default: the current one). Tests use it to write an archive spanning an upgrade;
   * an operator could hold the older layout while older appliers still run.
   */
  readonly layout?: SnapshotLayout;
  /** Where the planner's spans go; none are made without one (the default). */
  readonly tracer?: Tracer | null;
  /** Makes each appliance's plan engine (default: the planner's own; tests wrap it to inject a failing plan). */
  readonly createEngine?: EngineFactory;
}

/**
 * The planner's shell: folds kube-stream messages strictly in sequence order (S+1 after S; gaps filled by a direct
 * get), plans only what they touched, and commits archive + snapshots + position in ONE transaction before the
 * batch is acked. On start, and whenever another planner commits first, it rebuilds its world from the Postgres
 * archive, so it never depends on the broker's history.
 */
export class PlannerService {
  private readonly o: PlannerServiceOptions;
  private readonly tracer: Tracer | null;
  private planner: Planner;
  private sync: SyncTracker;
  /** Appliances that already got their first snapshot after every cluster they serve had synced. */
  private readonly released = new Set<string>();
  private position = 0;
  private heads = new Map<string, SnapshotHead>();
  /** Newest heartbeat per cluster (watch freshness, for status and metrics). */
  readonly heartbeats = new Map<string, number>();
  /**
   * True from the first fold of a batch (or of a rebuild) until its commit is answered: while set, the memory may be
   * ahead of the store (see handleBatch), and only a rebuild from the archive makes the two agree again.
   */
  private aheadOfStore = false;
  /** Set once another writer committed first: from then on each batch first folds what others committed. */
  private sharesConsumer = false;
  /** Compares watchers' settled digests with the world and asks for a republish when a message was lost. */
  private readonly lost = new LostMessageAudit();

  constructor(options: PlannerServiceOptions) {
    this.o = options;
    this.tracer = options.tracer ?? null;
    this.planner = new Planner(options.config, { layout: options.layout, createEngine: options.createEngine });
    this.sync = new SyncTracker(options.config);
  }

  /** The digest of one kind's state in a cluster, as watchers report theirs in settled heartbeats. */
  stateDigest(cluster: string, kind: KubeKind): StateDigest {
    return this.planner.world.stateDigest(cluster, kind);
  }

  /** Committed stream position. */
  get committedPosition(): number {
    return this.position;
  }

  /**
   * Rebuilds the world from the archive up to the committed position, then records a snapshot for any appliance
   * whose plan differs from its head (a new planner version, or a new appliance in the fleet config).
   */
  async recover(): Promise<{ replayed: number; snapshots: number }> {
    this.aheadOfStore = true;
    this.planner = new Planner(this.o.config, { layout: this.o.layout, createEngine: this.o.createEngine });
    this.sync = new SyncTracker(this.o.config);
    this.released.clear();
    this.position = await this.o.store.position();
    this.heads = await this.o.store.heads();
    let replayed = 0;
    for await (const e of this.o.store.archivedInputs(0, this.position)) {
      foldInput(this.planner, decodeBusMessage(e.subject, e.payload), this.heartbeats, this.sync);
      replayed++;
    }
    // The holds the archive rebuilds were recorded when their batches were committed.
    this.planner.takeHoldTransitions();
    this.o.metrics?.observeHolds(this.planner.heldRemovals());
    // A fleet-config change that would drop too much is held like any unexplained removal: the hold goes into the
    // stream first, and planning waits for it to come back in order (so replay holds at the same point).
    const held = await publishConfigDrops(this.o, this.planner.world);
    const snapshots = held ? 0 : await this.commitPlans([], this.position, null);
    this.aheadOfStore = false;
    await this.checkBrokerHistory();
    return { replayed, snapshots };
  }

  /** A stream whose history ends before what we committed lost acknowledged messages. */
  private async checkBrokerHistory(): Promise<void> {
    if (this.o.bus === null) return;
    const { lastSeq } = await this.o.bus.kubeStreamBounds();
    if (lastSeq < this.position) {
      this.o.metrics?.brokerHistoryRegressed.inc();
      this.o.log.error(
        { streamLastSeq: lastSeq, committed: this.position },
        'broker_history_regressed: the stream is behind the committed position; watchers must relist',
      );
    }
  }

  /**
   * Processes one delivered batch; resolves once its effects are committed (then the bus acks it). When another
   * writer moved the position or a head first (a second planner, an operator's rollback), the world is rebuilt from
   * the archive and the batch is folded again — it is never acked uncommitted.
   *
   * Invariant: every archived event is reflected in the next snapshot of every appliance it concerns, whatever fails
   * between the fold and the commit. Folding and planning change memory before the commit: the world takes the
   * events, planDirty() consumes the dirty marks, the encoders move to the new roots (whose pieces exist only in the
   * failed commit), appliances count as released, hold transitions are taken. After a failed commit (Postgres down,
   * a lost connection, an answer that never came) none of that is in the store, and the redelivered batch cannot
   * redo it: its events change nothing in a world that already has them (same resourceVersion), so their commit
   * archived them with no snapshot, and a later plan could name pieces never stored. So a failed commit leaves
   * `aheadOfStore` set and the next batch first rebuilds everything from the archive (recover(), which also reads the
   * position and heads the commit may in fact have written); a rebuild that fails too leaves it set. Keeping the
   * dirty marks until the commit would not be enough: the encoders' state moves with the plan.
   */
  async handleBatch(batch: readonly BusMessage[]): Promise<void> {
    if (this.aheadOfStore) {
      // While Postgres is down this fails at its first read, and the batch is redelivered: logged once it succeeds.
      const { replayed, snapshots } = await this.recover();
      this.o.log.warn(
        { position: this.position, replayed, snapshots },
        'rebuilt the world from the archive after a failed commit',
      );
    } else if (this.sharesConsumer) await this.catchUp();
    for (let attempt = 1; ; attempt++) {
      try {
        await this.foldAndCommit(batch);
        return;
      } catch (e) {
        if (!(e instanceof HeadMovedError) || attempt >= 5) throw e;
        this.sharesConsumer = true;
        this.o.log.info(
          { reason: e.message, attempt },
          'another writer committed first; rebuilding from the archive and retrying the batch',
        );
        await this.recover();
      }
    }
  }

  /**
   * Folds, from the archive, what other planners committed past this one's position, so the batch lands on top of
   * it: two sites' planners take turns on one durable consumer, and without this every batch would fail the
   * position's compare-and-set and rebuild the whole world. Their holds were logged by whoever committed them.
   */
  private async catchUp(): Promise<void> {
    const stored = await this.o.store.position();
    if (stored <= this.position) return;
    this.aheadOfStore = true;
    for await (const e of this.o.store.archivedInputs(this.position, stored))
      foldInput(this.planner, decodeBusMessage(e.subject, e.payload), this.heartbeats, this.sync);
    this.planner.takeHoldTransitions();
    this.heads = await this.o.store.heads();
    this.position = stored;
    this.aheadOfStore = false;
  }

  private async foldAndCommit(batch: readonly BusMessage[]): Promise<void> {
    const ordered = await this.contiguous(batch);
    if (ordered.length === 0) return;
    const started = performance.now();
    const events: ArchivedEvent[] = [];
    const holds: HoldRecord[] = [];
    const spans = new BatchTrace(this.tracer);
    // Cleared only once the commit is answered (handleBatch says why).
    this.aheadOfStore = true;
    this.lost.discard();
    for (const m of ordered) {
      const input = decodeBusMessage(m.subject, m.data);
      if (input.type === 'unreadable')
        this.o.log.warn({ seq: m.streamSeq, reason: input.reason }, 'unreadable message archived and skipped');
      spans.fold(m, () => foldInput(this.planner, input, this.heartbeats, this.sync));
      this.lost.note(input, this.planner.world, Date.now(), this.o.log, this.o.metrics);
      events.push(archivedEvent(m, input));
      for (const transition of this.planner.takeHoldTransitions())
        holds.push({ seq: m.streamSeq, atMs: inputTimeMs(input), transition });
    }
    if (holds.length > 0) this.logHolds(holds);
    const to = ordered[ordered.length - 1]!.streamSeq;
    const n = await spans.commit(ordered.length, to, (announce) =>
      this.commitPlans(events, to, spans.traceId, holds, announce),
    );
    this.aheadOfStore = false;
    this.lost.send(this.o.bus);
    if (holds.length > 0) this.o.metrics?.observeHolds(this.planner.heldRemovals());
    this.o.metrics?.observeBatch(ordered.length, n, performance.now() - started);
  }

  /** Every hold begun or ended is logged once, at commit time, with what an operator needs to act on it. */
  private logHolds(holds: readonly HoldRecord[]): void {
    for (const { seq, transition: t } of holds) {
      const { cluster, kind, key } = t.hold;
      const appliances = this.planner.appliancesServing(cluster);
      if (t.type === 'held')
        this.o.log.warn(
          { seq, cluster, kind, object: key, appliances, reason: t.hold.reason },
          'removal held by the safety rule: approve with `portolan approve <appliance> --reason ...`',
        );
      else
        this.o.log.info(
          {
            seq,
            cluster,
            kind,
            object: key,
            appliances,
            releasedBy: t.release.by,
            reason: t.release.reason,
            removed: t.removed,
          },
          'held removal released',
        );
    }
  }

  /** Plans the dirty appliances and commits them with `events`; returns the number of snapshots written. */
  private async commitPlans(
    events: readonly ArchivedEvent[],
    toPosition: number,
    traceId: string | null,
    holds: readonly HoldRecord[] = [],
    announce: Readonly<Record<string, string>> = {},
  ): Promise<number> {
    const snapshots: NewSnapshot[] = [];
    for (const plan of this.plansToRecord()) {
      const head = this.heads.get(plan.appliance);
      // Identical input (a relist, a duplicate) never creates a new snapshot.
      if (head !== undefined && head.contentHash === plan.root) continue;
      // Not held here: the store holds it when an operator's rollback pin exists (read in the commit's transaction).
      snapshots.push({
        appliance: plan.appliance,
        contentHash: plan.root,
        rootHash: plan.root,
        pieces: plan.pieces,
        parentId: head?.snapshotId ?? null,
        lastEventSeq: toPosition,
        fleetConfigHash: this.o.fleetConfigHash,
        plannerVersion: PLANNER_VERSION,
        held: false,
        holdReason: null,
        traceId,
      });
    }
    if (events.length === 0 && snapshots.length === 0) return 0;
    const committed = await this.o.store.commit({ fromPosition: this.position, toPosition, events, snapshots, holds });
    this.position = toPosition;
    snapshots.forEach((s, i) =>
      this.heads.set(s.appliance, { appliance: s.appliance, snapshotId: committed[i]!.id, contentHash: s.contentHash }),
    );
    await this.announce(snapshots, committed, announce);
    return snapshots.length;
  }

  /**
   * Never plan from a partial world: no snapshot for an appliance until every cluster it serves has completed a list of every kind; its
   * first snapshot after that is a full encoding of the current plan, later ones are incremental.
   *
   * Until some appliance is synced nothing is planned at all: the events are folded and their dirty marks add up,
   * so a cold start plans the listed world once, from empty, instead of once per batch of the initial lists. That
   * first plan starts from empty encoders, so its pieces are already whole snapshots: an appliance
   * released by it takes them as they are, without encoding its desired state a second time.
   */
  private plansToRecord(): { appliance: string; root: string; pieces: ReadonlyMap<string, Uint8Array> }[] {
    const synced = this.planner.appliances.filter((appliance) => this.sync.isApplianceSynced(appliance));
    if (synced.length === 0) return [];
    // Planning starts only here, and releases at least one appliance: none released yet means this is the first plan.
    const fromEmpty = this.released.size === 0;
    const dirty = new Map(this.planner.planDirty().map((p) => [p.appliance, p] as const));
    for (const f of this.planner.takePlanFailures()) {
      this.o.metrics?.planFailures.inc({ appliance: f.appliance });
      this.o.log.error(
        {
          appliance: f.appliance,
          err: f.error instanceof Error ? (f.error.stack ?? f.error.message) : String(f.error),
        },
        'planning this appliance failed: it keeps its last snapshot while the others go on; the events are archived',
      );
    }
    const out: { appliance: string; root: string; pieces: ReadonlyMap<string, Uint8Array> }[] = [];
    for (const appliance of synced) {
      const plan = dirty.get(appliance);
      // An appliance whose plan failed has no desired state to release: an empty one would wipe it.
      if (this.planner.planFailing(appliance)) continue;
      if (!this.released.has(appliance)) {
        this.released.add(appliance);
        if (fromEmpty && plan !== undefined) {
          out.push(plan);
          continue;
        }
        const desired = this.planner.desiredState(appliance);
        if (desired === null) continue;
        const full = encodeSnapshot(desired, this.o.layout);
        out.push({ appliance, root: full.root, pieces: full.bytes });
        continue;
      }
      if (plan !== undefined) out.push(plan);
    }
    return out;
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
        this.o.log.error(
          { seq },
          'broker_history_regressed: a sequence is missing from the stream; watchers must relist to repair',
        );
        continue;
      }
      out.push(m);
    }
    return out;
  }

  /** Publishes SnapshotCommitted for each new head, with the trace context the applier continues (`headers`). */
  private async announce(
    snapshots: readonly NewSnapshot[],
    committed: readonly CommittedSnapshot[],
    headers: Readonly<Record<string, string>>,
  ): Promise<void> {
    if (this.o.bus === null) return;
    for (const [i, s] of snapshots.entries()) {
      const c = committed[i]!;
      const msg = create(SnapshotCommittedSchema, {
        appliance: s.appliance,
        snapshotId: BigInt(c.id),
        contentHash: s.contentHash,
        lastEventSeq: BigInt(s.lastEventSeq),
        fleetConfigHash: s.fleetConfigHash,
        plannerVersion: s.plannerVersion,
        createdAt: timestampFromMs(Date.now()),
        held: c.held,
        holdReason: c.holdReason ?? '',
        newPieces: piecesHint(s.pieces),
      });
      await this.o.bus
        .publish(planSubject(s.appliance), toBinary(SnapshotCommittedSchema, msg), {
          msgId: `snap:${s.appliance}:${c.id}`,
          headers,
        })
        .catch((e: unknown) => {
          // Appliers also poll the heads: a lost notification delays an apply, never loses it.
          this.o.log.warn({ err: (e as Error).message, appliance: s.appliance }, 'could not announce snapshot');
        });
    }
  }
}

/** Pieces small enough to ride along with the notification (a one-endpoint change); none when the snapshot is large. */
const PIECES_HINT_MAX_BYTES = 64 * 1024;

function piecesHint(pieces: ReadonlyMap<string, Uint8Array>): Record<string, Uint8Array> {
  let bytes = 0;
  // Stops at the limit: a first snapshot has hundreds of thousands of pieces.
  for (const body of pieces.values()) if ((bytes += body.length) > PIECES_HINT_MAX_BYTES) return {};
  return Object.fromEntries(pieces);
}
