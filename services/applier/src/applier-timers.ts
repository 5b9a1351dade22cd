import type { ApplierLogger, ApplierOptions, DriftCheckResult } from './applier-options.ts';
import type { ApplyTrigger } from './core/apply-target.ts';

/** How long the appliance must have been quiet before a provisional render is tidied, by default. */
export const DEFAULT_TIDY_DELAY_MS = 2000;

/** What the timers drive on the Applier. */
export interface TimerTargets {
  readonly trigger: (reason: ApplyTrigger) => void;
  readonly checkDrift: () => Promise<DriftCheckResult>;
  /** One head poll; rejects when the snapshot store does not answer. */
  readonly pollHead: () => Promise<void>;
}

/**
 * The Applier's clocks: the head poll (the backstop when a plan.<appliance> message is missed, and the readiness
 * signal), the drift timer, a follower's debounce of snapshot notifications, and the tidy render's debounce.
 */
export class ApplierTimers {
  readonly #o: ApplierOptions;
  readonly #logger: ApplierLogger;
  readonly #targets: TimerTargets;
  #intervals: NodeJS.Timeout[] = [];
  #lastPollOkAt: number | null = null;
  /** A follower's catch-up after a quiet spell (forty delays at most). */
  readonly #follower: CappedDebounce;
  /** The tidy cycle after a quiet spell (ten delays at most). */
  readonly #tidy: CappedDebounce;

  constructor(options: ApplierOptions, logger: ApplierLogger, targets: TimerTargets) {
    this.#o = options;
    this.#logger = logger;
    this.#targets = targets;
    this.#follower = new CappedDebounce(40, () => targets.trigger('snapshot'));
    this.#tidy = new CappedDebounce(10, () => targets.trigger('tidy'));
  }

  /** Starts the head poll and the drift timer. */
  start(): void {
    this.#intervals.push(setInterval(() => void this.pollNow(), this.#o.pollMs ?? 2000));
    this.#intervals.push(
      setInterval(
        () =>
          void this.#targets
            .checkDrift()
            // The next period checks again; a check that keeps failing shows in the log and in no drift record.
            .catch((e: unknown) => this.#logger.error({ err: e }, 'drift check failed')),
        this.#o.drift.intervalMs,
      ),
    );
  }

  /** Stops every timer. */
  stop(): void {
    for (const t of this.#intervals) clearInterval(t);
    this.#intervals = [];
    this.#follower.cancel();
    this.#tidy.cancel();
  }

  /** Polls the head once; a failure is logged and shows in `readiness` (no successful poll for a while). */
  async pollNow(): Promise<void> {
    try {
      await this.#targets.pollHead();
      this.#lastPollOkAt = performance.now();
    } catch (e) {
      this.#logger.warn({ err: e }, 'head poll failed');
    }
  }

  /**
   * A snapshot notification: the leader's cycle starts now. A follower's waits for a quiet spell of followerDelayMs
   * (each notification restarts the wait, up to forty delays in all), so its catch-up runs between the leader's
   * applies rather than beside one.
   */
  onSnapshot(): void {
    if (this.#o.leadership() !== null) {
      this.#targets.trigger('snapshot');
      return;
    }
    this.#follower.arm(this.#o.followerDelayMs ?? 250);
  }

  /**
   * The appliance holds a provisional render: the tidy cycle runs after a quiet spell of tidyDelayMs (each call
   * restarts the wait, up to ten delays in all, so steady churn still gets its tidy render).
   */
  armTidy(): void {
    this.#tidy.arm(this.#o.tidyDelayMs ?? DEFAULT_TIDY_DELAY_MS);
  }

  /** Readiness: the snapshot store answered a head poll recently (inputs are not stale). */
  readiness(now: number): { ok: true } | { ok: false; reason: string } {
    const limit = 3 * (this.#o.pollMs ?? 2000);
    if (this.#lastPollOkAt === null) return { ok: false, reason: 'no successful head poll yet' };
    if (now - this.#lastPollOkAt > limit)
      return { ok: false, reason: `no successful head poll for ${Math.round((now - this.#lastPollOkAt) / 1000)} s` };
    return { ok: true };
  }
}

/**
 * Runs `fire` once calls stop for a delay: each call restarts the wait, but never past `maxDelays` delays after the
 * first call of a burst, so a steady stream still fires.
 */
class CappedDebounce {
  readonly #maxDelays: number;
  readonly #fire: () => void;
  #timer: NodeJS.Timeout | null = null;
  #since = 0;

  constructor(maxDelays: number, fire: () => void) {
    this.#maxDelays = maxDelays;
    this.#fire = fire;
  }

  arm(delay: number): void {
    const now = performance.now();
    if (this.#timer === null) this.#since = now;
    else if (now - this.#since < (this.#maxDelays - 1) * delay) clearTimeout(this.#timer);
    else return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#fire();
    }, delay);
  }

  cancel(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }
}
