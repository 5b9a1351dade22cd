/** Bounds of the scheduler's sleep between passes. */
export interface PassDelayBounds {
  /** Never sooner than this (a renewal time in the past must not spin the loop). */
  readonly minMs: number;
  /** Never later than this (Secrets may change without anyone telling the issuer). */
  readonly maxMs: number;
}

/** How long the scheduler sleeps after a pass: until the plan's next check, within the bounds. */
export function nextPassDelayMs(nextCheckAtMs: number | null, nowMs: number, bounds: PassDelayBounds): number {
  const wanted = nextCheckAtMs === null ? bounds.maxMs : nextCheckAtMs - nowMs;
  return Math.min(bounds.maxMs, Math.max(bounds.minMs, wanted));
}
