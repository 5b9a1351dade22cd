import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely, Database } from '@portolan/store';
import type { PgEpochStore } from './adapters/pg-epoch-store.ts';
import type { RedisLeaseClient } from './adapters/redis-lease-client.ts';
import { actingDelayMs, leaseDeadline, type LeaseTimings } from './core/lease-timings.ts';
import { formatLeaseValue, leaseKey } from './core/lease-value.ts';
import { LeaderListenerError, StaleEpochError } from './errors.ts';

/**
 * Why a leadership ended. `superseded`: a newer epoch was granted while this holder still held the lease — the
 * lease store lost or split its key (a failover to a replica that never saw it, a partition healing) — so the term
 * can only be fenced; it is ended and the lease given back, so a campaign grants an epoch that is current again.
 */
export type LossReason = 'renew-refused' | 'validity-expired' | 'stopped' | 'superseded';

/** One term of leadership: valid while `signal` is not aborted and the local validity lasts. */
export interface Leadership {
  readonly group: string;
  readonly holder: string;
  /** The fencing token: every write and record of this term carries it. */
  readonly epoch: number;
  /** Aborted when leadership is lost or its local validity runs out (reason: a LossReason string). */
  readonly signal: AbortSignal;
  /** Milliseconds of local validity left on the monotonic clock (≤ 0: stop acting). */
  remainingMs(): number;
  /** True while this term may act; aborts the signal as soon as the validity ran out, even if no timer fired yet. */
  isValid(): boolean;
  /** Throws StaleEpochError unless this epoch is still the latest; pass the record's transaction. */
  assertEpochCurrent(executor?: Kysely<Database>): Promise<void>;
}

/** What the elector reports. */
export type LeaderEvent =
  | { readonly type: 'elected'; readonly epoch: number; readonly actingDelayMs: number }
  | { readonly type: 'lost'; readonly epoch: number; readonly reason: LossReason }
  | { readonly type: 'error'; readonly stage: 'acquire' | 'grant' | 'renew' | 'release'; readonly error: unknown };

/** Options of a LeaderElector. */
export interface LeaderElectorOptions {
  readonly group: string;
  /** Replica id, shown by `portolan leader status`. */
  readonly holder: string;
  readonly timings: LeaseTimings;
  readonly lease: RedisLeaseClient;
  readonly epochs: PgEpochStore;
  /** Redis key prefix (tests use a unique one). Default `portolan:`. */
  readonly keyPrefix?: string;
  /** Monotonic clock in ms; default performance.now. */
  readonly now?: () => number;
  readonly onEvent?: (event: LeaderEvent) => void;
}

interface Term {
  readonly value: string;
  readonly epoch: number;
  readonly controller: AbortController;
  deadline: number;
  /** The deadline timer (one per term, re-armed on every renewal). */
  timer: NodeJS.Timeout | null;
}

/**
 * Campaigns for one group's lease, holds it by renewing, and hands out a Leadership per term (docs/architecture.md).
 * The leader stops acting before its lease expires by its own clock: a deadline timer aborts the term, and
 * `isValid()` checks the clock directly so a resumed process (SIGSTOP, GC pause) stops even before timers run.
 */
export class LeaderElector {
  readonly group: string;
  readonly holder: string;
  private readonly options: LeaderElectorOptions;
  private readonly key: string;
  private readonly now: () => number;
  private readonly stopController = new AbortController();
  private term: Term | null = null;
  private leadership: Leadership | null = null;
  private loop: Promise<void> | null = null;
  private readonly waiters = new Set<(l: Leadership) => void>();

  constructor(options: LeaderElectorOptions) {
    this.options = options;
    this.group = options.group;
    this.holder = options.holder;
    this.key = leaseKey(options.keyPrefix ?? 'portolan:', options.group);
    this.now = options.now ?? (() => performance.now());
  }

  /** Starts campaigning in the background. */
  start(): void {
    this.loop ??= this.run();
  }

  /** The current term, when it may act. */
  current(): Leadership | null {
    return this.leadership !== null && this.leadership.isValid() ? this.leadership : null;
  }

  /** Resolves with the next term that may act (immediately if one is current). */
  waitForLeadership(): Promise<Leadership> {
    const now = this.current();
    if (now !== null) return Promise.resolve(now);
    return new Promise((resolve) => this.waiters.add(resolve));
  }

  /** Stops campaigning; a current holder aborts its term and releases the lease so a follower takes over at once. */
  async stop(): Promise<void> {
    this.stopController.abort();
    const term = this.term;
    if (term !== null) this.endTerm(term, 'stopped');
    await this.loop;
    if (term !== null) await this.release(term.value);
  }

  /** Gives the lease back; a failure is reported, and the key then simply expires after its TTL. */
  private async release(value: string): Promise<void> {
    try {
      await this.options.lease.release(this.key, value);
    } catch (error) {
      this.emit({ type: 'error', stage: 'release', error });
    }
  }

  private async run(): Promise<void> {
    const stop = this.stopController.signal;
    while (!stop.aborted) {
      const term = await this.campaign();
      if (term === null) break;
      await this.hold(term);
      if (!stop.aborted && term.controller.signal.reason !== 'renew-refused') {
        // Our key may outlive the term (validity ran out locally while Redis still held it): give it back.
        await this.release(term.value);
      }
    }
  }

  /** Tries to acquire every retry period until it gets the lease and an epoch, or stop() is called. */
  private async campaign(): Promise<Term | null> {
    const { timings, lease } = this.options;
    const stop = this.stopController.signal;
    while (!stop.aborted) {
      const value = formatLeaseValue({ holder: this.holder, nonce: randomBytes(6).toString('hex') });
      const startedAt = this.now();
      let runId: string | null = null;
      try {
        const r = await lease.acquire(this.key, value, timings.ttlMs);
        if (r.ok) runId = r.runId;
      } catch (error) {
        this.emit({ type: 'error', stage: 'acquire', error });
      }
      if (runId !== null) {
        const term = await this.openTerm(value, leaseDeadline(startedAt, timings), runId);
        if (term !== null) return term;
      }
      await pause(timings.retryEveryMs, stop);
    }
    return null;
  }

  private async openTerm(value: string, deadline: number, runId: string): Promise<Term | null> {
    const { timings, epochs } = this.options;
    try {
      const grant = await epochs.grant(this.group, this.holder, runId, (previous) =>
        actingDelayMs(previous, runId, timings),
      );
      const term: Term = { value, epoch: grant.epoch, controller: new AbortController(), deadline, timer: null };
      if (this.now() >= deadline || this.stopController.signal.aborted) {
        await this.release(value);
        return null;
      }
      this.term = term;
      this.scheduleActing(term, grant.actingDelayMs);
      return term;
    } catch (error) {
      this.emit({ type: 'error', stage: 'grant', error });
      await this.release(value);
      return null;
    }
  }

  /** Publishes the term after the acting delay (while the renew loop keeps the lease). */
  private scheduleActing(term: Term, delayMs: number): void {
    const publish = (): void => {
      if (term.controller.signal.aborted || this.term !== term) return;
      const leadership = this.makeLeadership(term);
      if (!leadership.isValid()) return;
      this.leadership = leadership;
      this.emit({ type: 'elected', epoch: term.epoch, actingDelayMs: delayMs });
      for (const resolve of this.waiters) resolve(leadership);
      this.waiters.clear();
    };
    if (delayMs <= 0) publish();
    else {
      const timer = setTimeout(publish, delayMs);
      term.controller.signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
    }
  }

  /** Renews until the lease is refused, its validity runs out, or stop() is called. */
  private async hold(term: Term): Promise<void> {
    const { timings, lease } = this.options;
    const signal = term.controller.signal;
    this.armExpiry(term);
    while (!signal.aborted) {
      await pause(timings.renewEveryMs, signal);
      if (signal.aborted || !this.checkValidity(term)) break;
      const startedAt = this.now();
      try {
        const renewed = await lease.renew(this.key, term.value, timings.ttlMs);
        if (signal.aborted) break;
        if (!renewed) {
          this.endTerm(term, 'renew-refused');
          break;
        }
        // A renewal that began after the local deadline cannot revive the term.
        if (startedAt >= term.deadline) {
          this.endTerm(term, 'validity-expired');
          break;
        }
        term.deadline = leaseDeadline(startedAt, timings);
        this.armExpiry(term);
      } catch (error) {
        this.emit({ type: 'error', stage: 'renew', error });
      }
      if (await this.superseded(term)) {
        this.endTerm(term, 'superseded');
        break;
      }
    }
    if (term.timer !== null) clearTimeout(term.timer);
  }

  /**
   * True when a newer epoch than the term's was granted. Without this, a holder whose lease outlived a split of the
   * lease store would keep the lease for ever with an epoch every write is fenced by, and the group would apply
   * nothing. A store that cannot be read says nothing (the term's validity still bounds it).
   */
  private async superseded(term: Term): Promise<boolean> {
    if (term.controller.signal.aborted) return false;
    try {
      await this.options.epochs.assertCurrent(this.group, term.epoch);
      return false;
    } catch (error) {
      return error instanceof StaleEpochError;
    }
  }

  /**
   * Arms the deadline timer. Node's timers run on a millisecond loop clock and can fire a fraction of a
   * millisecond before the monotonic deadline: then the timer is armed again for what is left.
   */
  private armExpiry(term: Term): void {
    if (term.timer !== null) clearTimeout(term.timer);
    term.timer = setTimeout(
      () => {
        term.timer = null;
        if (this.checkValidity(term)) this.armExpiry(term);
      },
      Math.max(1, Math.ceil(term.deadline - this.now())),
    );
  }

  /** Ends the term when its local validity is over; true while still valid. */
  private checkValidity(term: Term): boolean {
    if (term.controller.signal.aborted) return false;
    if (this.now() < term.deadline) return true;
    this.endTerm(term, 'validity-expired');
    return false;
  }

  private endTerm(term: Term, reason: LossReason): void {
    if (term.controller.signal.aborted) return;
    if (term.timer !== null) clearTimeout(term.timer);
    term.timer = null;
    term.controller.abort(reason);
    if (this.term === term) this.term = null;
    if (this.leadership?.epoch === term.epoch) this.leadership = null;
    this.emit({ type: 'lost', epoch: term.epoch, reason });
  }

  private makeLeadership(term: Term): Leadership {
    const epochs = this.options.epochs;
    return {
      group: this.group,
      holder: this.holder,
      epoch: term.epoch,
      signal: term.controller.signal,
      remainingMs: () => (term.controller.signal.aborted ? 0 : term.deadline - this.now()),
      isValid: () => this.checkValidity(term),
      assertEpochCurrent: (executor) => epochs.assertCurrent(this.group, term.epoch, executor),
    };
  }

  private emit(event: LeaderEvent): void {
    try {
      this.options.onEvent?.(event);
    } catch (error) {
      // A listener's bug must not break the lease loop: it is reported as a process warning instead.
      process.emitWarning(new LeaderListenerError(this.group, event.type, { cause: error }));
    }
  }
}

/** Waits `ms`, returning early (without throwing) when `signal` aborts; any other failure propagates. */
async function pause(ms: number, signal: AbortSignal): Promise<void> {
  try {
    await sleep(ms, undefined, { signal });
  } catch (error) {
    if (!signal.aborted) throw error;
  }
}
