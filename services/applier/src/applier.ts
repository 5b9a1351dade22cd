import type { DesiredState } from '@portolan/desired-state';
import type { Operation, OperationOutcome } from '@portolan/appliance-driver';
import { StaleEpochError, type Leadership } from '@portolan/leadership';
import type { RecordedApply } from './adapters/pg-apply-log.ts';
import type { LoadedSnapshot } from './adapters/pg-snapshot-source.ts';
import type { ApplierLogger, ApplierOptions, CycleResult, DriftCheckResult } from './applier-options.ts';
import { RefusedObjectsReporter } from './report-refused-objects.ts';
import { executeOperations } from './execute-operations.ts';
import { isAppliedStatus, summarizeApply } from './core/apply-outcome.ts';
import { CyclePhases } from './core/cycle-phases.ts';
import { decideApplyTarget, mayConverge, type ApplyTrigger, type SnapshotHeader } from './core/apply-target.ts';
import { describeDrift, driftAction } from './core/drift-report.ts';
import { RetryTimer } from './retry-timer.ts';

export type { ApplierLogger, ApplierOptions, CycleResult, DriftCheckResult } from './applier-options.ts';

const silent: ApplierLogger = { info: () => {}, warn: () => {}, error: () => {} };

/** Whether a newer epoch exists than this term's (true), it is current (false); store failures reject. */
function isEpochStale(term: Leadership): Promise<boolean> {
  return term.assertEpochCurrent().then(
    () => false,
    (e: unknown) => (e instanceof StaleEpochError ? true : Promise.reject(e)),
  );
}

/**
 * Follows an appliance's snapshots and, while this replica leads, converges the appliance to them: read back,
 * render, diff, send only the difference, record every outcome under the fencing epoch, retry failures with
 * capped jittered backoff, check drift periodically, then write Ingress status and Events. Cycles run one at a
 * time; followers decode and render every snapshot (their view stays warm) but never read back, write or record.
 */
export class Applier {
  private readonly o: ApplierOptions;
  private readonly logger: ApplierLogger;
  private readonly stopController = new AbortController();
  private chain: Promise<unknown> = Promise.resolve();
  private queued: Promise<CycleResult> | null = null;
  private last: RecordedApply | null = null;
  private baseline: unknown = undefined;
  /** The render of the last fully successful apply: what the appliance holds, so the next change diffs against it without a full read-back. */
  private hotBaseline: unknown = undefined;
  private holds = new Set<string>();
  private snapshot: LoadedSnapshot | null = null;
  /** Decoded snapshots by id: the current one and the last applied one (decoding is O(world), the check needs both). */
  private readonly loaded = new Map<string, LoadedSnapshot>();
  private readonly retry: RetryTimer;
  private readonly refusals: RefusedObjectsReporter;
  private followerTimer: NodeJS.Timeout | null = null;
  /** When the follower's pending catch-up was first asked for (the debounce gives up waiting for quiet after 40 delays). */
  private followerSince = 0;
  private timers: NodeJS.Timeout[] = [];
  private lastHeadId: string | null = null;
  private termEpoch: number | null = null;
  private lastPollOkAt: number | null = null;
  /** Applies started so far: a drift read-back taken across one is stale and is not compared. */
  private appliesStarted = 0;
  /** When the queued cycle was first asked for (its phases start there: time spent queued counts). */
  private queuedAt = 0;

  constructor(options: ApplierOptions) {
    this.o = options;
    this.logger = options.logger ?? silent;
    this.retry = new RetryTimer(() => this.trigger('retry'), options.retry, options.random);
    this.refusals = new RefusedObjectsReporter({
      driver: options.driver,
      secrets: options.secrets,
      bus: options.bus ?? null,
      logger: this.logger,
    });
  }

  /** Loads the last recorded apply and holds, so a restart neither re-records nor re-applies. */
  async init(): Promise<void> {
    this.last = await this.o.log.lastApplied(this.o.appliance);
    this.holds = await this.o.log.recordedHolds(this.o.appliance);
    if (this.last?.observedAfterHash)
      this.baseline = (await this.o.log.getPiece(this.last.observedAfterHash)) ?? undefined;
  }

  /** Starts following: a first cycle, the bus subscription, the head poll and the drift timer. */
  async start(): Promise<void> {
    await this.init();
    await this.pollHead();
    const signal = this.stopController.signal;
    this.o.bus?.followSnapshots((_id, pieces, header) => {
      if (pieces !== undefined && pieces.size > 0) this.o.snapshots.offer?.(pieces);
      if (header !== undefined) this.o.snapshots.offerHead?.(header);
      this.onSnapshot();
    }, signal);
    this.timers.push(setInterval(() => void this.pollHead(), this.o.pollMs ?? 2000));
    this.timers.push(
      setInterval(
        () => void this.checkDrift().catch((e: unknown) => this.logger.error({ err: e }, 'drift check failed')),
        this.o.drift.intervalMs,
      ),
    );
    this.trigger('start');
  }

  /** Starts a cycle in the background (failures are logged and retried by the cycle itself). */
  trigger(reason: ApplyTrigger): void {
    void this.reconcile(reason).catch(() => undefined);
  }

  /**
   * A snapshot notification: the leader's cycle starts now. A follower's waits for a quiet spell of followerDelayMs
   * (each notification restarts the wait, up to forty delays in all), so its catch-up runs between the leader's
   * applies rather than beside one.
   */
  private onSnapshot(): void {
    if (this.o.leadership() !== null) {
      this.trigger('snapshot');
      return;
    }
    const delay = this.o.followerDelayMs ?? 250;
    const now = performance.now();
    if (this.followerTimer === null) this.followerSince = now;
    else if (now - this.followerSince < 39 * delay) clearTimeout(this.followerTimer);
    else return;
    this.followerTimer = setTimeout(() => {
      this.followerTimer = null;
      this.trigger('snapshot');
    }, delay);
  }

  /** Stops timers and waits for the running cycle. */
  async stop(): Promise<void> {
    this.stopController.abort();
    for (const t of this.timers) clearInterval(t);
    this.retry.cancel();
    if (this.followerTimer !== null) clearTimeout(this.followerTimer);
    await this.chain.catch(() => undefined);
    await this.o.driver
      .settle?.()
      .catch((e: unknown) => this.logger.error({ err: e }, 'deferred appliance writes failed at stop'));
  }

  /** Readiness: the snapshot store answered a head poll recently (inputs are not stale). */
  readiness(now = performance.now()): { ok: true } | { ok: false; reason: string } {
    const limit = 3 * (this.o.pollMs ?? 2000);
    if (this.lastPollOkAt === null) return { ok: false, reason: 'no successful head poll yet' };
    if (now - this.lastPollOkAt > limit)
      return { ok: false, reason: `no successful head poll for ${Math.round((now - this.lastPollOkAt) / 1000)} s` };
    return { ok: true };
  }

  /** The desired state of the snapshot this replica last converged to (or examined), for the ACME issuer's requests. */
  currentDesired(): DesiredState | null {
    return this.snapshot?.desired ?? null;
  }

  /** The last apply recorded by any leader for this appliance, as this replica knows it. */
  lastApplied(): RecordedApply | null {
    return this.last;
  }

  /** Queues one apply cycle (coalesced with one already waiting); errors are logged and retried. */
  reconcile(trigger: ApplyTrigger): Promise<CycleResult> {
    if (this.queued !== null) return this.queued;
    this.queuedAt = performance.now();
    const run = this.serial(async () => {
      this.queued = null;
      const phases = new CyclePhases(() => performance.now(), this.queuedAt);
      phases.mark('queued');
      try {
        return await this.cycle(trigger, phases);
      } catch (e) {
        this.logger.error({ err: e, trigger }, 'apply cycle failed');
        this.retry.schedule(1, 1, this.stopController.signal.aborted);
        throw e;
      }
    });
    this.queued = run;
    return run;
  }

  /**
   * Compares the appliance with the read-back after the last apply; records, publishes and corrects or reports.
   * The read-back (the slow part on a large appliance) runs beside apply cycles, so a change arriving meanwhile is
   * not delayed; the comparison runs in turn, and is skipped when an apply happened while reading.
   */
  async checkDrift(): Promise<DriftCheckResult> {
    const leadership = this.o.leadership();
    if (leadership === null) return { kind: 'follower' };
    const generation = this.appliesStarted;
    const started = performance.now();
    const observed = await this.o.driver.readBack(leadership.signal, { remember: false });
    const readMs = performance.now() - started;
    const result = await this.serial(() =>
      this.appliesStarted === generation ? this.driftOnce(observed) : Promise.resolve({ kind: 'superseded' as const }),
    );
    // When a check ran and how long it read (a large appliance's read-back competes with apply cycles for the CPU).
    this.logger.info(
      { result: result.kind, readMs: Math.round(readMs), totalMs: Math.round(performance.now() - started) },
      'drift check done',
    );
    return result;
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.chain.catch(() => undefined).then(fn);
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async pollHead(): Promise<void> {
    try {
      const head = await this.o.snapshots.head(this.o.appliance, { fresh: true });
      // Followers learn what the leader applied from the log (for the age metric, not for acting).
      if (this.o.leadership() === null) this.last = await this.o.log.lastApplied(this.o.appliance);
      const lastId = this.last?.snapshotId ?? null;
      const oldest = await this.o.snapshots.oldestUnappliedAt(this.o.appliance, lastId);
      this.o.metrics?.oldestUnappliedAge.set(oldest === null ? 0 : Math.max(0, (Date.now() - oldest.getTime()) / 1000));
      this.lastPollOkAt = performance.now();
      if (head !== null && head.id !== this.lastHeadId) this.trigger('poll');
    } catch (e) {
      this.logger.warn({ err: e }, 'head poll failed');
    }
  }

  /** A new term starts from what the log says (another replica may have applied since this one last looked). */
  private async syncTerm(leadership: Leadership | null): Promise<void> {
    if (leadership === null || leadership.epoch === this.termEpoch) return;
    // Another leader may have written since this replica's last apply: the term's first cycle reads everything back.
    this.hotBaseline = undefined;
    await this.init();
    this.termEpoch = leadership.epoch;
  }

  private async cycle(trigger: ApplyTrigger, phases = new CyclePhases(() => performance.now())): Promise<CycleResult> {
    const term = this.o.leadership();
    await this.syncTerm(term);
    // The epoch check every write needs is one store round trip: start it now, beside the head read, load, render
    // and diff, and wait for it just before the first write.
    const epochCheck = term === null ? null : { epoch: term.epoch, stale: isEpochStale(term) };
    epochCheck?.stale.catch(() => undefined);
    const head = await this.o.snapshots.head(this.o.appliance);
    this.lastHeadId = head?.id ?? null;
    // The safety rule is part of the plan (the planner keeps suspicious removals planned): every head is applied
    // unless an operator's rollback pin holds it.
    const target = decideApplyTarget(head, this.last?.snapshotId ?? null, this.holds);
    phases.mark('head');
    if (target.holdToRecord !== null) await this.recordHold(target.holdToRecord);
    if (target.snapshotId === null) return { kind: 'idle' };
    // A head poll or notification for the snapshot the last fully successful apply already applied (the poll raced
    // the notification's cycle): nothing to do. Reading a large appliance back here (a second of CPU at 10k
    // backends) would hold up the next change; finding drift is the drift timer's job.
    if (term !== null && this.followsCleanApply(trigger) && this.last?.snapshotId === target.snapshotId) {
      return { kind: 'in-sync', snapshotId: target.snapshotId, pending: 0 };
    }
    const snapshot = await this.load(target.snapshotId);
    phases.mark('load');
    const leadership = this.o.leadership();
    const signal = leadership?.signal ?? this.stopController.signal;
    const rendered = this.o.driver.render(snapshot.desired);
    phases.mark('render');
    // A follower keeps its decoded snapshot and its render warm for a quick takeover, and nothing more: reading the
    // appliance back on every snapshot would cost a large appliance's read-back (about a second of CPU at 10k
    // backends) on the cores the leader needs. Its first cycle as leader reads everything back.
    if (leadership === null || !leadership.isValid()) return { kind: 'follower', snapshotId: snapshot.id };
    // Hot path: a new snapshot after a fully successful apply diffs against what that apply left (targeted read-back
    // where the driver offers it). Start-up, retries, failures and the drift timer read everything back.
    const hot =
      this.o.driver.renderMatchesReadBack === true &&
      this.followsCleanApply(trigger) &&
      this.last?.snapshotId !== snapshot.id;
    const observed = hot
      ? this.o.driver.readBackChanged !== undefined
        ? await this.o.driver.readBackChanged(this.hotBaseline, rendered, signal)
        : this.hotBaseline
      : await this.o.driver.readBack(signal);
    phases.mark('read-back');
    const operations = this.o.driver.diff(rendered, observed);
    phases.mark('diff');
    if (operations.length === 0) this.hotBaseline = rendered;
    this.o.metrics?.pendingOperations.set(operations.length);
    const fresh = this.last === null || this.last.snapshotId !== snapshot.id;
    if (operations.length === 0 && !fresh && this.last?.status !== 'partial' && this.last?.status !== 'failed') {
      this.retry.clear();
      return { kind: 'in-sync', snapshotId: snapshot.id, pending: 0 };
    }
    if (
      operations.length > 0 &&
      !mayConverge({ trigger, targetId: snapshot.id, last: this.last, driftPolicy: this.o.drift.policy })
    ) {
      return { kind: 'in-sync', snapshotId: snapshot.id, pending: operations.length };
    }
    return this.apply(
      leadership,
      snapshot,
      operations,
      observed,
      rendered,
      trigger,
      phases,
      epochCheck?.epoch === leadership.epoch ? epochCheck.stale : null,
    );
  }

  /** A snapshot or poll trigger after a fully successful apply whose render is kept: the appliance holds that render. */
  private followsCleanApply(trigger: ApplyTrigger): boolean {
    return (
      (trigger === 'snapshot' || trigger === 'poll') &&
      this.hotBaseline !== undefined &&
      this.last?.status === 'succeeded'
    );
  }

  private async apply(
    leadership: Leadership,
    snapshot: LoadedSnapshot,
    operations: readonly Operation[],
    observed: unknown,
    rendered: unknown,
    trigger: ApplyTrigger,
    phases: CyclePhases,
    staleEpoch: Promise<boolean> | null = null,
  ): Promise<CycleResult> {
    const startedAt = new Date();
    this.appliesStarted++;
    let fenced = false;
    let outcomes: OperationOutcome[] = [];
    if (operations.length > 0) {
      const stale = staleEpoch ?? isEpochStale(leadership);
      const phase = (name: string): void => phases.mark(`send:${name}`);
      if (this.o.driver.acceptsWriteGate === true) {
        // The driver reads (its own fence, which worker runs) while the epoch check is in flight and writes only after it.
        phases.mark('epoch');
        outcomes = await executeOperations(
          this.o.driver,
          leadership,
          this.o.secrets,
          operations,
          phase,
          stale.then((s) => !s),
        );
        fenced = await stale;
        if (fenced) outcomes = [];
      } else {
        fenced = await stale;
        phases.mark('epoch');
        if (!fenced) outcomes = await executeOperations(this.o.driver, leadership, this.o.secrets, operations, phase);
      }
    }
    phases.mark('send');
    fenced ||= outcomes.length < operations.length;
    const summary = summarizeApply(operations.length, outcomes, fenced);
    // After a fully successful apply the appliance holds the render (every write was acknowledged); otherwise read it back.
    const allOk = !fenced && summary.failed === 0;
    const observedAfter =
      operations.length === 0
        ? observed
        : allOk
          ? rendered
          : await this.o.driver.readBack(leadership.signal).catch(() => null);
    this.hotBaseline = allOk ? rendered : undefined;
    phases.mark('read-back');
    const recorded = await this.o.log.recordApply(
      {
        appliance: this.o.appliance,
        snapshotId: snapshot.id,
        epoch: leadership.epoch,
        leaderId: this.o.replicaId,
        trigger:
          trigger === 'drift-correction'
            ? 'drift-correction'
            : trigger === 'retry'
              ? 'retry'
              : snapshot.origin === 'rollback'
                ? 'rollback'
                : 'snapshot',
        status: summary.status,
        operations,
        outcomes,
        observedAfter,
        reason: fenced
          ? 'leadership or epoch lost before every operation was sent'
          : snapshot.origin === 'rollback'
            ? (snapshot.reason ?? null)
            : null,
        startedAt,
        finishedAt: new Date(),
        traceId: null,
      },
      leadership,
    );
    phases.mark('record');
    for (const o of outcomes) this.o.metrics?.operations.inc({ result: o.result.ok ? 'ok' : 'failed' });
    const refused = outcomes
      .filter((o) => !o.result.ok)
      .slice(0, 5)
      .map((o) => ({
        object: `${o.operation.objectType}/${o.operation.objectName}`,
        code: o.result.ok ? '' : o.result.code,
        message: o.result.ok ? '' : o.result.message.slice(0, 500),
      }));
    if (refused.length > 0)
      this.logger.warn({ snapshot: snapshot.id, failed: summary.failed, refused }, 'operations failed');
    this.o.metrics?.applies.inc({ status: recorded.status });
    if (recorded.status === 'fenced') {
      this.logger.warn(
        { epoch: leadership.epoch, snapshot: snapshot.id },
        'apply fenced: a newer epoch exists, nothing further sent',
      );
    } else {
      this.last = recorded;
      if (observedAfter !== null) this.baseline = observedAfter;
      this.o.metrics?.lastApplyTimestamp.set(recorded.finishedAt.getTime() / 1000);
      // Partial counts as an apply, not a success: the alert on failing applies reads this one.
      if (recorded.status === 'succeeded' || recorded.status === 'noop')
        this.o.metrics?.lastSuccessTimestamp.set(recorded.finishedAt.getTime() / 1000);
    }
    await this.announce(
      recorded,
      snapshot,
      leadership.epoch,
      summary.failed,
      operations.length,
      recorded.finishedAt.getTime() - startedAt.getTime(),
    );
    phases.mark('announce');
    for (const [phase, seconds] of phases.seconds()) this.o.metrics?.cyclePhases.observe({ phase }, seconds);
    this.logger.info(
      {
        snapshot: snapshot.id,
        status: recorded.status,
        operations: operations.length,
        ms: phases.toObject(),
        totalMs: Math.round(phases.totalMs * 10) / 10,
      },
      'apply recorded',
    );
    if (isAppliedStatus(recorded.status))
      this.o.writeback?.afterApply(snapshot.desired, this.o.defaultAddress ?? null, outcomes);
    else if (recorded.status === 'failed') this.o.writeback?.reportRefusals(snapshot.desired, outcomes);
    if (recorded.status === 'failed' || recorded.status === 'partial') {
      await this.refusals
        .afterApply(snapshot.id, snapshot.desired, outcomes)
        .catch((e: unknown) => this.logger.warn({ err: e }, 'finding the refused objects failed'));
    }
    const retryInMs =
      recorded.status === 'fenced'
        ? null
        : this.retry.schedule(summary.failed, summary.retryableFailed, this.stopController.signal.aborted);
    return {
      kind: 'applied',
      snapshotId: snapshot.id,
      status: recorded.status,
      applyId: recorded.id,
      operations: operations.length,
      failed: summary.failed,
      retryInMs,
    };
  }

  private async driftOnce(observed: unknown): Promise<DriftCheckResult> {
    const leadership = this.o.leadership();
    if (leadership === null) return { kind: 'follower' };
    await this.syncTerm(leadership);
    if (this.last === null) return { kind: 'no-baseline' };
    const driver = this.o.driver;
    const baseline = this.baseline ?? driver.render((await this.load(this.last.snapshotId)).desired);
    const report = describeDrift(driver.diff(baseline, observed), driver.diff(observed, baseline));
    // Ingress statuses are re-read on the same period (applies skip them when listeners did not change).
    if (isAppliedStatus(this.last.status))
      this.o.writeback?.afterApply(
        (await this.load(this.last.snapshotId)).desired,
        this.o.defaultAddress ?? null,
        [],
        true,
      );
    if (report === null) return { kind: 'clean' };
    const action = driftAction(this.o.drift.policy);
    const observationId = await this.o.log.recordDrift(this.o.appliance, this.last.snapshotId, report, action);
    this.o.metrics?.drift.inc({ action });
    this.logger.warn({ objects: report.objects, action }, 'drift observed');
    await this.o.bus
      ?.driftObserved(observationId, this.last.snapshotId, report, action, new Date())
      .catch((e: unknown) => this.logger.warn({ err: e }, 'publishing DriftObserved failed'));
    if (action === 'corrected') await this.cycle('drift-correction');
    return { kind: 'drift', report, action, observationId };
  }

  private async recordHold(head: SnapshotHeader): Promise<void> {
    const leadership = this.o.leadership();
    if (leadership === null) return;
    const now = new Date();
    const recorded = await this.o.log.recordApply(
      {
        appliance: this.o.appliance,
        snapshotId: head.id,
        epoch: leadership.epoch,
        leaderId: this.o.replicaId,
        trigger: 'hold',
        status: 'held',
        operations: [],
        outcomes: [],
        observedAfter: null,
        reason: head.holdReason,
        startedAt: now,
        finishedAt: now,
        traceId: null,
      },
      leadership,
    );
    if (recorded.status === 'held') this.holds.add(head.id);
    this.logger.warn({ snapshot: head.id, reason: head.holdReason }, 'snapshot held by a rollback pin: not applied');
  }

  private async load(id: string): Promise<LoadedSnapshot> {
    let loaded = this.loaded.get(id);
    if (loaded === undefined) {
      loaded = await this.o.snapshots.get(id);
      // Keep only what a later cycle asks for again: the last applied snapshot (the drift check's baseline).
      for (const kept of this.loaded.keys()) if (kept !== this.last?.snapshotId) this.loaded.delete(kept);
      this.loaded.set(id, loaded);
    }
    this.snapshot = loaded;
    return loaded;
  }

  private async announce(
    recorded: RecordedApply,
    snapshot: LoadedSnapshot,
    epoch: number,
    failed: number,
    operations: number,
    durationMs: number,
  ): Promise<void> {
    await this.o.bus
      ?.applyRecorded({
        applyId: recorded.id,
        snapshotId: snapshot.id,
        contentHash: snapshot.hash,
        epoch,
        leaderId: this.o.replicaId,
        status: recorded.status,
        operations,
        failedOperations: failed,
        durationMs: Math.max(0, durationMs),
        finishedAt: recorded.finishedAt,
      })
      .catch((e: unknown) => this.logger.warn({ err: e }, 'publishing ApplyRecorded failed'));
  }
}
