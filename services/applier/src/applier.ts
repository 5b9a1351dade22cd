import type { DesiredState } from '@portolan/desired-state';
import type { Leadership } from '@portolan/leadership';
import type { ApplierLogger, ApplierOptions, CycleResult, DriftCheckResult } from './applier-options.ts';
import { silentLogger } from './applier-options.ts';
import { RefusedObjectsReporter } from './report-refused-objects.ts';
import {
  announceApply,
  followUpApply,
  recordHeldHead,
  isEpochStale,
  logPhases,
  recordBeforeSending,
  sendUnderEpoch,
  type Converging,
} from './apply-step.ts';
import type { RecordedApply } from './core/apply-log.ts';
import { isAppliedStatus, summarizeApply } from './core/apply-outcome.ts';
import type { ApplyTrigger } from './core/apply-target.ts';
import {
  decideAfterDiff,
  decideAfterHead,
  observationFor,
  observedAfterSource,
  recordedReason,
  type CycleMemory,
} from './core/cycle-decisions.ts';
import { CyclePhases } from './core/cycle-phases.ts';
import { traceCycle, traceDriftRead, type CycleTrace } from './cycle-trace.ts';
import { describeDrift, driftAction } from './core/drift-report.ts';
import type { LoadedSnapshot } from './core/snapshot-store.ts';
import { RetryTimer } from './retry-timer.ts';
import { ApplierTimers } from './applier-timers.ts';
import { trace, type Tracer } from '@portolan/telemetry';
export type { ApplierLogger, ApplierOptions, CycleResult, DriftCheckResult } from './applier-options.ts';

/** What a cycle converges with: the target, the trigger, the phase clock, the epoch check under way, its spans. */
type ConvergeArgs = [string, ApplyTrigger, CyclePhases, { epoch: number; stale: Promise<boolean> } | null, CycleTrace];

/**
 * Follows an appliance's snapshots and, while this replica leads, converges the appliance to them: read back,
 * render, diff, send only the difference, record every outcome under the fencing epoch, retry failures with
 * capped jittered backoff, check drift periodically, then write Ingress status and Events. Cycles run one at a
 * time; followers decode and render every snapshot (their view stays warm) but never read back, write or record.
 *
 * This is the shell: it does the I/O in the order the decisions of core/cycle-decisions.ts ask for, and keeps what
 * they need between cycles. Everything it remembers of the appliance is plain data passed to the driver's pure half.
 */
export class Applier {
  private readonly o: ApplierOptions;
  private readonly logger: ApplierLogger;
  private readonly tracer: Tracer;
  private readonly stopController = new AbortController();
  /** Cycles and drift comparisons run one at a time, in the order asked (see `serial`). */
  private chain: Promise<unknown> = Promise.resolve();
  private queued: Promise<CycleResult> | null = null;
  /** When the queued cycle was first asked for (its phases start there: time spent queued counts). */
  private queuedAt = 0;
  private last: RecordedApply | null = null;
  private holds = new Set<string>();
  /** The read-back recorded with the last apply: the drift check's baseline. */
  private baseline: unknown = undefined;
  /** The render of the last fully successful apply: what the appliance holds, so the next change diffs against it. */
  private cleanRender: unknown = undefined;
  /**
   * What the appliance is known to hold, for the next render (a driver places objects by it, HAProxy members into
   * their slots): the last read-back of a cycle, or the render an apply fully succeeded with. Null until then.
   */
  private known: unknown = null;
  private snapshot: LoadedSnapshot | null = null;
  /** Decoded snapshots by id: the current one and the last applied one (decoding is O(world), the check needs both). */
  private readonly loaded = new Map<string, LoadedSnapshot>();
  private readonly retry: RetryTimer;
  private readonly refusals: RefusedObjectsReporter;
  private readonly timers: ApplierTimers;
  private lastHeadId: string | null = null;
  private termEpoch: number | null = null;
  /** Applies started so far: a drift read-back taken across one is stale and is not compared. */
  private appliesStarted = 0;

  constructor(options: ApplierOptions) {
    this.o = options;
    this.logger = options.logger ?? silentLogger;
    this.tracer = options.tracer ?? trace.getTracer('applier');
    this.retry = new RetryTimer(() => this.trigger('retry'), options.retry, options.random);
    this.refusals = new RefusedObjectsReporter({
      driver: options.driver,
      secrets: options.secrets,
      bus: options.bus ?? null,
      logger: this.logger,
    });
    this.timers = new ApplierTimers(options, this.logger, {
      trigger: (reason) => this.trigger(reason),
      checkDrift: () => this.checkDrift(),
      pollHead: () => this.pollHead(),
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
    await this.timers.pollNow();
    this.o.bus?.followSnapshots((_id, pieces, header) => {
      if (pieces !== undefined && pieces.size > 0) this.o.snapshots.offer?.(pieces);
      if (header !== undefined) this.o.snapshots.offerHead?.(header);
      this.timers.onSnapshot();
    }, this.stopController.signal);
    this.timers.start();
    this.trigger('start');
  }

  /** Starts a cycle in the background (failures are logged and retried by the cycle itself). */
  trigger(reason: ApplyTrigger): void {
    // `reconcile` has logged the failure and scheduled the retry; nobody else waits for this cycle.
    void this.reconcile(reason).catch(() => undefined);
  }

  /** Stops timers, waits for the running cycle, then writes what the driver deferred. */
  async stop(): Promise<void> {
    this.stopController.abort();
    this.timers.stop();
    this.retry.cancel();
    // The running cycle's failure, if any, was logged by the cycle itself; stopping only waits for it to end.
    await this.chain.catch(() => undefined);
    await this.o.driver
      .settle()
      .catch((e: unknown) => this.logger.error({ err: e }, 'deferred appliance writes failed at stop'));
  }

  /** Readiness: the snapshot store answered a head poll recently (inputs are not stale). */
  readiness(now = performance.now()): { ok: true } | { ok: false; reason: string } {
    return this.timers.readiness(now);
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
        // Logged and rethrown to whoever awaits the cycle; the retry timer tries again.
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
    const start = { appliance: this.o.appliance, snapshotId: this.last?.snapshotId ?? null, epoch: leadership.epoch };
    const observed = await traceDriftRead(this.tracer, start, () => this.o.driver.readBack(leadership.signal));
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

  /** Runs `fn` after everything queued before it; one failure does not stop the queue (its caller sees it). */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.chain.catch(() => undefined).then(fn);
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** One head poll: the age metric, and a cycle when the head moved (the backstop for a missed notification). */
  private async pollHead(): Promise<void> {
    const head = await this.o.snapshots.head(this.o.appliance, { fresh: true });
    // Followers learn what the leader applied from the log (for the age metric, and to start their catch-up).
    if (this.o.leadership() === null) {
      const before = this.last;
      this.last = await this.o.log.lastApplied(this.o.appliance);
      if (before === null && this.last !== null) this.trigger('poll'); // the leader's first apply: catch up now
    }
    const oldest = await this.o.snapshots.oldestUnappliedAt(this.o.appliance, this.last?.snapshotId ?? null);
    this.o.metrics?.oldestUnappliedAge.set(oldest === null ? 0 : Math.max(0, (Date.now() - oldest.getTime()) / 1000));
    if (head !== null && head.id !== this.lastHeadId) this.trigger('poll');
  }

  /** A new term starts from what the log says (another replica may have applied since this one last looked). */
  private async syncTerm(leadership: Leadership | null): Promise<void> {
    if (leadership === null || leadership.epoch === this.termEpoch) return;
    // Another leader may have written since this replica's last apply: the term's first cycle reads everything back.
    this.cleanRender = undefined;
    await this.init();
    this.termEpoch = leadership.epoch;
  }

  private memory(): CycleMemory {
    return { last: this.last, holds: this.holds, hasCleanRender: this.cleanRender !== undefined };
  }

  private async cycle(trigger: ApplyTrigger, phases = new CyclePhases(() => performance.now())): Promise<CycleResult> {
    const term = this.o.leadership();
    await this.syncTerm(term);
    // The epoch check every write needs is one store round trip: start it now, beside the head read, load, render
    // and diff, and wait for it just before the first write.
    const epochCheck = term === null ? null : { epoch: term.epoch, stale: isEpochStale(term) };
    // Awaited (or dropped with its term) in the apply step; until then a rejection must not be unhandled.
    epochCheck?.stale.catch(() => undefined);
    const head = await this.o.snapshots.head(this.o.appliance);
    this.lastHeadId = head?.id ?? null;
    const next = decideAfterHead(this.memory(), head, trigger, term !== null);
    phases.mark('head');
    const hold = next.holdToRecord;
    if (hold !== null && (await recordHeldHead(this.o, this.logger, hold))) this.holds.add(hold.id);
    if (next.kind === 'idle') return { kind: 'idle' };
    if (next.kind === 'in-sync') return { kind: 'in-sync', snapshotId: next.snapshotId, pending: 0 };
    // A follower leaves the cores to the leader until the log shows its first apply (see `pollHead`).
    if (term === null && this.last === null) return { kind: 'follower', snapshotId: next.snapshotId };
    const { snapshotId } = next;
    // The trace of the planning continues only into the head as announced; another target starts a trace of its own.
    const parent = head?.id === snapshotId ? (head.traceContext ?? null) : null;
    const start = { appliance: this.o.appliance, snapshotId, trigger, epoch: term?.epoch ?? null, parent };
    const converge = (spans: CycleTrace): Promise<CycleResult> =>
      this.converge(snapshotId, trigger, phases, epochCheck, spans);
    const result = await traceCycle(this.tracer, 'applier.cycle', start, converge, (r) =>
      'status' in r ? r.status : r.kind,
    );
    // The appliance holds a provisional render (new pools in spare backends): tidy it once things are quiet.
    if (this.cleanRender !== undefined && this.o.driver.provisional?.(this.cleanRender) === true) this.timers.armTidy();
    return result;
  }

  /** Loads, renders, observes and diffs the target snapshot; applies the difference while this replica leads. */
  private async converge(...[snapshotId, trigger, phases, epochCheck, spans]: ConvergeArgs): Promise<CycleResult> {
    const snapshot = await this.load(snapshotId);
    phases.mark('load');
    const leadership = this.o.leadership();
    const mode = trigger === 'tidy' ? { tidy: true } : undefined;
    const render = (): unknown => this.o.driver.render(snapshot.desired, this.known, mode);
    const rendered = await this.refusals.render(snapshot.id, render, leadership?.isValid() === true);
    phases.mark('render');
    // A follower keeps its decoded snapshot and its render warm for a quick takeover, and nothing more: reading the
    // appliance back on every snapshot would cost a large appliance's read-back on the cores the leader needs.
    if (leadership === null || !leadership.isValid()) return { kind: 'follower', snapshotId: snapshot.id };
    const how = observationFor(this.memory(), trigger, snapshot.id, this.o.driver.capabilities);
    const readBack = (): Promise<unknown> => spans.readBack(() => this.o.driver.readBack(leadership.signal));
    const observed = how === 'clean-render' ? this.cleanRender : await readBack();
    if (how === 'read-back') this.known = observed;
    phases.mark('read-back');
    const operations = this.o.driver.diff(rendered, observed);
    phases.mark('diff');
    if (operations.length === 0) this.cleanRender = rendered;
    this.o.metrics?.pendingOperations.set(operations.length);
    const verdict = decideAfterDiff(this.memory(), {
      operations: operations.length,
      snapshotId: snapshot.id,
      trigger,
      driftPolicy: this.o.drift.policy,
    });
    if (verdict.kind === 'in-sync') {
      if (verdict.clearRetries) this.retry.clear();
      return { kind: 'in-sync', snapshotId: snapshot.id, pending: verdict.pending };
    }
    const staleEpoch = epochCheck?.epoch === leadership.epoch ? epochCheck.stale : null;
    return this.apply({ leadership, snapshot, operations, observed, rendered, trigger, phases, staleEpoch, spans });
  }

  /** Sends, records under the fence, announces, and follows up (status, refusals, retries). */
  private async apply(c: Converging): Promise<CycleResult> {
    const { leadership, snapshot, operations, phases } = c;
    const startedAt = new Date();
    this.appliesStarted++;
    const sent = await sendUnderEpoch(this.o, leadership, operations, {
      target: c.rendered,
      snapshotId: snapshot.id,
      phases,
      staleEpoch: c.staleEpoch,
      trace: c.spans,
    });
    phases.mark('send');
    const fenced = sent.fenced || sent.outcomes.length < operations.length;
    const summary = summarizeApply(operations.length, sent.outcomes, fenced);
    const allOk = !fenced && summary.failed === 0;
    const source = observedAfterSource(operations.length, allOk);
    const observedAfter =
      source === 'observed'
        ? c.observed
        : source === 'rendered'
          ? c.rendered
          : // A failed read-back records the apply without one; the next cycle reads everything back anyway.
            await c.spans.readBack(() => this.o.driver.readBack(leadership.signal)).catch(() => null);
    this.cleanRender = allOk ? c.rendered : undefined;
    if (observedAfter !== null) this.known = observedAfter;
    phases.mark('read-back');
    const recorded = await this.o.log.recordApply(
      {
        ...recordBeforeSending(this.o, c, startedAt),
        status: summary.status,
        outcomes: sent.outcomes,
        observedAfter,
        reason: recordedReason(fenced, snapshot),
      },
      leadership,
    );
    phases.mark('record');
    if (recorded.status !== 'fenced') {
      this.last = recorded;
      if (observedAfter !== null) this.baseline = observedAfter;
    }
    const report = { recorded, snapshot, epoch: leadership.epoch, summary, startedAt };
    await announceApply(this.o, this.logger, { ...report, outcomes: sent.outcomes, operations: operations.length });
    phases.mark('announce');
    logPhases(this.o, this.logger, recorded, operations.length, phases);
    await followUpApply(this.o, this.logger, this.refusals, { recorded, snapshot, outcomes: sent.outcomes });
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
    const baseline = this.baseline ?? driver.render((await this.load(this.last.snapshotId)).desired, this.known);
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
      // Best effort: the observation is recorded in Postgres; the message only saves a reader a poll.
      .catch((e: unknown) => this.logger.warn({ err: e }, 'publishing DriftObserved failed'));
    if (action === 'corrected') await this.cycle('drift-correction');
    return { kind: 'drift', report, action, observationId };
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
}
