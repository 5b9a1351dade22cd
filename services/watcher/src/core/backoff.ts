/** Shape of a retry schedule: exponential from `baseMs`, never above `capMs`. */
export interface BackoffPolicy {
  readonly baseMs: number;
  readonly capMs: number;
}

/** The watch supervisor's schedule: 0.5 s doubling to at most 30 s. */
export const WATCH_BACKOFF: BackoffPolicy = { baseMs: 500, capMs: 30_000 };

/**
 * Delay before retry number `attempt` (1 = first retry): "equal jitter", half fixed and half random, so retries of
 * many watchers spread out (no reconnect storm) yet never fall to zero. `random` is in [0, 1).
 */
export function backoffDelayMs(attempt: number, random: number, policy: BackoffPolicy = WATCH_BACKOFF): number {
  const exp = Math.min(policy.capMs, policy.baseMs * 2 ** Math.max(0, Math.min(attempt - 1, 30)));
  const r = Math.min(Math.max(random, 0), 1);
  return Math.min(policy.capMs, Math.round(exp / 2 + (exp / 2) * r));
}

/** A watch's `timeoutSeconds`: randomised between 1× and 2× the bound, like client-go, so watches do not end in step. */
export function watchTimeoutSeconds(boundSeconds: number, random: number): number {
  return Math.max(1, Math.round(boundSeconds * (1 + Math.min(Math.max(random, 0), 1))));
}
