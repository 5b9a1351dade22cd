import { defaultRetryPolicy, nextRetryDelayMs, type RetryPolicy } from './core/retry-schedule.ts';

/** The applier's retry after failed operations: attempts counted since the last clean apply, one timer at a time. */
export class RetryTimer {
  readonly #fire: () => void;
  readonly #policy: RetryPolicy;
  readonly #random: () => number;
  #attempt = 0;
  #timer: NodeJS.Timeout | null = null;

  constructor(fire: () => void, policy: RetryPolicy = defaultRetryPolicy, random: () => number = Math.random) {
    this.#fire = fire;
    this.#policy = policy;
    this.#random = random;
  }

  /** Schedules the next retry after an apply with failures (none: clears); returns the delay, or null when none. */
  schedule(failed: number, retryableFailed: number, stopped: boolean): number | null {
    if (failed === 0) {
      this.clear();
      return null;
    }
    this.#attempt++;
    const delay = nextRetryDelayMs(this.#attempt, failed, retryableFailed, this.#policy, this.#random());
    if (delay === null || stopped) return null;
    this.cancel();
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#fire();
    }, delay);
    return delay;
  }

  /** After a clean apply: the next failure starts from the first attempt again. */
  clear(): void {
    this.#attempt = 0;
    this.cancel();
  }

  /** Drops a pending retry (on stop), keeping the attempt count. */
  cancel(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }
}
