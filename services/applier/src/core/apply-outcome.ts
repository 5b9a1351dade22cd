import type { OperationOutcome } from '@portolan/appliance-driver';

/** Final status of one apply, as stored in `applies.status`. */
export type ApplyStatus = 'noop' | 'succeeded' | 'partial' | 'failed' | 'fenced' | 'held';

/** What one apply cycle did, summarised for the log, the bus and the retry schedule. */
export interface ApplySummary {
  readonly status: ApplyStatus;
  readonly planned: number;
  readonly sent: number;
  readonly failed: number;
  readonly retryableFailed: number;
}

/**
 * Summarises executed operations. `fenced` means leadership or the epoch was lost before every planned
 * operation was sent: the rest were not sent and the next leader converges.
 */
export function summarizeApply(planned: number, outcomes: readonly OperationOutcome[], fenced: boolean): ApplySummary {
  const failed = outcomes.filter((o) => !o.result.ok);
  const retryableFailed = failed.filter((o) => !o.result.ok && o.result.retryable).length;
  const base = { planned, sent: outcomes.length, failed: failed.length, retryableFailed };
  if (fenced) return { ...base, status: 'fenced' };
  if (planned === 0) return { ...base, status: 'noop' };
  if (failed.length === 0) return { ...base, status: 'succeeded' };
  return { ...base, status: failed.length === outcomes.length ? 'failed' : 'partial' };
}

/** True when the appliance may now hold the target (status write-back and Events follow). */
export function isAppliedStatus(status: ApplyStatus): boolean {
  return status === 'noop' || status === 'succeeded' || status === 'partial';
}
