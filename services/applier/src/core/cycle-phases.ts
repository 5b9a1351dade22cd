/**
 * Where one apply cycle's time went: consecutive named phases, each measured from the previous mark. The applier
 * logs them with every recorded apply and feeds a histogram per phase, so a slow change can be attributed (queued
 * behind another cycle, head read, decode, render, read-back, diff, epoch wait, send, record) without a profiler.
 *
 * Mutable by design: one stopwatch per cycle, owned by that cycle and read once at its end. It reads the clock only
 * through the `now` it is given, so it stays deterministic under test.
 */
export class CyclePhases {
  private readonly now: () => number;
  private readonly origin: number;
  private last: number;
  private readonly spans: [string, number][] = [];

  /** `origin` is when the cycle was asked for (the trigger), which may be before it started. */
  constructor(now: () => number, origin: number = now()) {
    this.now = now;
    this.origin = origin;
    this.last = origin;
  }

  /** Ends the current phase under `name` (a name marked twice adds up). */
  mark(name: string): void {
    const t = this.now();
    const span = this.spans.find((s) => s[0] === name);
    if (span === undefined) this.spans.push([name, t - this.last]);
    else span[1] += t - this.last;
    this.last = t;
  }

  /** Milliseconds from the origin to the last mark. */
  get totalMs(): number {
    return this.last - this.origin;
  }

  /** The phases in the order first marked, in milliseconds rounded to 0.1. */
  toObject(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [name, ms] of this.spans) out[name] = Math.round(ms * 10) / 10;
    return out;
  }

  /** The phases as (name, seconds) pairs, for a histogram. */
  seconds(): [string, number][] {
    return this.spans.map(([name, ms]) => [name, ms / 1000]);
  }
}
