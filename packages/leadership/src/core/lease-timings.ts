/**
 * Lease arithmetic: validity is measured on the monotonic clock from just BEFORE the request that
 * set or extended the lease, minus a drift margin, so a leader always stops before Redis expires its key.
 */

/** Lease parameters of one leader group. Crash takeover ≈ ttl + retry; graceful handoff ≈ retry. */
export interface LeaseTimings {
  readonly ttlMs: number;
  readonly renewEveryMs: number;
  readonly retryEveryMs: number;
  /** Subtracted from every validity: clock-rate drift and scheduling slack. */
  readonly driftMarginMs: number;
  /** Upper bound of one Redis command; a renewal that takes longer counts as failed. */
  readonly commandTimeoutMs: number;
}

/** Lease timings as configured (fleet config `leases`), before validation. */
export interface LeaseTimingsInput {
  readonly ttlMs: number;
  readonly renewEveryMs: number;
  readonly retryEveryMs: number;
  readonly driftMarginMs?: number;
}

/** A timing set that cannot keep a lease, as data. */
export interface LeaseTimingsProblem {
  readonly type: 'InvalidLeaseTimings';
  readonly reason: string;
  readonly message: string;
}

/**
 * Default drift margin: 2 % of the TTL plus 2 ms (Redlock allows 1 % for clock-rate drift; the rest covers a
 * late deadline timer on a busy event loop), never below 50 ms.
 */
export function defaultDriftMarginMs(ttlMs: number): number {
  return Math.max(50, Math.ceil(ttlMs * 0.02) + 2);
}

/** Validates timings and derives the drift margin and command timeout. */
export function leaseTimings(
  input: LeaseTimingsInput,
): { ok: true; timings: LeaseTimings } | { ok: false; problem: LeaseTimingsProblem } {
  const driftMarginMs = input.driftMarginMs ?? defaultDriftMarginMs(input.ttlMs);
  const usable = input.ttlMs - driftMarginMs;
  const bad = (reason: string, message: string): { ok: false; problem: LeaseTimingsProblem } => ({
    ok: false,
    problem: { type: 'InvalidLeaseTimings', reason, message },
  });
  if (!(input.ttlMs > 0 && input.renewEveryMs > 0 && input.retryEveryMs > 0))
    return bad('NonPositive', 'ttlMs, renewEveryMs and retryEveryMs must be positive');
  // At least two renewal attempts must fit in the usable validity, so one lost reply does not cost the lease.
  if (input.renewEveryMs * 2 > usable) {
    return bad(
      'RenewTooSlow',
      `renewEveryMs ${input.renewEveryMs} leaves no second renewal inside ttlMs ${input.ttlMs} minus drift ${driftMarginMs}`,
    );
  }
  const commandTimeoutMs = Math.max(50, Math.min(input.renewEveryMs, Math.floor((usable - input.renewEveryMs) / 2)));
  return {
    ok: true,
    timings: {
      ttlMs: input.ttlMs,
      renewEveryMs: input.renewEveryMs,
      retryEveryMs: input.retryEveryMs,
      driftMarginMs,
      commandTimeoutMs,
    },
  };
}

/** Monotonic instant until which a lease set by a request started at `requestStartedAt` may be acted on. */
export function leaseDeadline(requestStartedAt: number, timings: LeaseTimings): number {
  return requestStartedAt + timings.ttlMs - timings.driftMarginMs;
}

/**
 * How long a new leader waits before acting. When the previous epoch was granted by another Redis incarnation
 * (restart without persistence, failover), that holder may still believe it leads for up to one TTL; when the
 * incarnation is the same, SET NX succeeding proves the previous key expired or was released.
 */
export function actingDelayMs(
  previousRunId: string | null | undefined,
  currentRunId: string,
  timings: LeaseTimings,
): number {
  if (previousRunId === undefined || previousRunId === null || previousRunId === currentRunId) return 0;
  return timings.ttlMs;
}
