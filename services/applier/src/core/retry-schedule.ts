/** Capped exponential backoff for re-applying after failed operations. */
export interface RetryPolicy {
  readonly baseMs: number;
  readonly capMs: number;
}

/** Default policy: 500 ms doubling to 30 s. */
export const defaultRetryPolicy: RetryPolicy = { baseMs: 500, capMs: 30_000 };

/**
 * Delay before retry number `attempt` (1-based): base·2^(attempt−1), capped, with "equal jitter" (half fixed,
 * half random) so replicas and appliances do not retry in lockstep. `random` is in [0, 1).
 */
export function retryDelayMs(attempt: number, policy: RetryPolicy, random: number): number {
  const exponent = Math.min(Math.max(attempt, 1) - 1, 30);
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** exponent);
  return Math.round(ceiling / 2 + (ceiling / 2) * Math.min(Math.max(random, 0), 1));
}

/**
 * When to retry after an apply with failures: retryable failures back off from the base; failures the
 * appliance called permanent (validation refusals) are retried only at the cap, as the object may be fixed
 * by a later snapshot but hammering the appliance will not help. No failures → no retry.
 */
export function nextRetryDelayMs(
  attempt: number,
  failed: number,
  retryableFailed: number,
  policy: RetryPolicy,
  random: number,
): number | null {
  if (failed === 0) return null;
  if (retryableFailed === 0) return policy.capMs;
  return retryDelayMs(attempt, policy, random);
}
