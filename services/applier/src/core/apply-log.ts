import type { Operation, OperationOutcome } from '@portolan/appliance-driver';
import type { ApplyStatus } from './apply-outcome.ts';
import type { DriftReport } from './drift-report.ts';

/** One apply as it goes into the append-only apply log. */
export interface ApplyRecordInput {
  readonly appliance: string;
  readonly snapshotId: string;
  readonly epoch: number;
  readonly leaderId: string;
  readonly trigger: 'snapshot' | 'drift-correction' | 'rollback' | 'retry' | 'hold' | 'tidy';
  readonly status: ApplyStatus;
  readonly operations: readonly Operation[];
  readonly outcomes: readonly OperationOutcome[];
  /** The vendor objects read back after the apply (plain JSON, no secrets); null when the read-back failed. */
  readonly observedAfter: unknown;
  readonly reason: string | null;
  readonly startedAt: Date;
  readonly finishedAt: Date;
  readonly traceId: string | null;
}

/** A recorded apply, as the applier remembers the last one. */
export interface RecordedApply {
  readonly id: string;
  readonly snapshotId: string;
  readonly status: ApplyStatus;
  readonly observedAfterHash: string | null;
  readonly finishedAt: Date;
}

/** The term a record is written under (a Leadership has both): its group's epoch row is its fence. */
export interface EpochFence {
  readonly group: string;
  readonly epoch: number;
}

/**
 * Where applies, holds and drift are recorded (Postgres in production: PgApplyLog). A record from a superseded epoch
 * is stored as `fenced`, never as applied, so no outcome under an old epoch is ever accepted.
 */
export interface ApplyLog {
  /** Records an apply under the fence; returns the stored id and status (`fenced` when the epoch was stale). */
  recordApply(input: ApplyRecordInput, fence: EpochFence): Promise<RecordedApply>;
  /** The last apply that may have reached the appliance (not fenced, not a hold). */
  lastApplied(appliance: string): Promise<RecordedApply | null>;
  /** Snapshot ids whose hold was already recorded (so a restart does not record them again). */
  recordedHolds(appliance: string): Promise<Set<string>>;
  /** A read-back stored with an apply; null when absent. */
  getPiece(hash: string): Promise<unknown>;
  /** Records drift found by a read-back; returns the observation's id. */
  recordDrift(
    appliance: string,
    snapshotId: string | null,
    report: DriftReport,
    action: 'corrected' | 'reported',
  ): Promise<string>;
}
