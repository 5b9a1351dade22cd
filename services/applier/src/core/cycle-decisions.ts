import type { DriverCapabilities } from '@portolan/appliance-driver';
import type { RecordedApply, ApplyRecordInput } from './apply-log.ts';
import { decideApplyTarget, mayConverge, type ApplyTrigger, type SnapshotHeader } from './apply-target.ts';
import type { DriftPolicy } from './drift-report.ts';

// The decisions of one apply cycle, in the order the shell (Applier) takes them: after the head read, after the
// diff, and after sending. Each takes what the shell remembers and what it just learned, and returns data; the
// shell does the I/O between them.

/** What the shell remembers between cycles, as far as the decisions need it. */
export interface CycleMemory {
  /** The last apply recorded by any leader for this appliance, as this replica knows it. */
  readonly last: RecordedApply | null;
  /** Held snapshots whose hold is already recorded. */
  readonly holds: ReadonlySet<string>;
  /** Whether the render of the last fully successful apply is kept (the appliance holds exactly it). */
  readonly hasCleanRender: boolean;
}

/** What to do once the head is known. */
export type HeadDecision =
  | { readonly kind: 'idle'; readonly holdToRecord: SnapshotHeader | null }
  | { readonly kind: 'in-sync'; readonly snapshotId: string; readonly holdToRecord: SnapshotHeader | null }
  | { readonly kind: 'load'; readonly snapshotId: string; readonly holdToRecord: SnapshotHeader | null };

/** A snapshot or poll trigger after a fully successful apply whose render is kept: the appliance holds that render. */
export function followsCleanApply(memory: CycleMemory, trigger: ApplyTrigger): boolean {
  return (trigger === 'snapshot' || trigger === 'poll') && memory.hasCleanRender && memory.last?.status === 'succeeded';
}

/**
 * The target after the head read. The safety rule is part of the plan (the planner keeps suspicious removals
 * planned): every head is applied unless an operator's rollback pin holds it. A head poll or notification for the
 * snapshot the last fully successful apply already applied (the poll raced the notification's cycle) has nothing
 * to do: reading a large appliance back there would hold up the next change, and finding drift is the drift
 * timer's job.
 */
export function decideAfterHead(
  memory: CycleMemory,
  head: SnapshotHeader | null,
  trigger: ApplyTrigger,
  isLeader: boolean,
): HeadDecision {
  const target = decideApplyTarget(head, memory.last?.snapshotId ?? null, memory.holds);
  const holdToRecord = target.holdToRecord;
  if (target.snapshotId === null) return { kind: 'idle', holdToRecord };
  if (isLeader && followsCleanApply(memory, trigger) && memory.last?.snapshotId === target.snapshotId)
    return { kind: 'in-sync', snapshotId: target.snapshotId, holdToRecord };
  return { kind: 'load', snapshotId: target.snapshotId, holdToRecord };
}

/**
 * How the leader learns what the appliance holds: the hot path diffs a new snapshot after a fully successful apply
 * against what that apply left (the kept render); start-up, retries, failures and the drift timer read everything.
 */
export function observationFor(
  memory: CycleMemory,
  trigger: ApplyTrigger,
  snapshotId: string,
  capabilities: DriverCapabilities,
): 'clean-render' | 'read-back' {
  if (!capabilities.renderMatchesReadBack) return 'read-back';
  // A tidy cycle redoes the render the appliance holds: that render is the observation.
  if (trigger === 'tidy') return memory.hasCleanRender ? 'clean-render' : 'read-back';
  return followsCleanApply(memory, trigger) && memory.last?.snapshotId !== snapshotId ? 'clean-render' : 'read-back';
}

/** What to do with the operations a diff found. */
export type DiffDecision =
  { readonly kind: 'in-sync'; readonly pending: number; readonly clearRetries: boolean } | { readonly kind: 'apply' };

/**
 * Whether to apply. Nothing to send for the snapshot last applied cleanly is in sync (and ends any retry series); a
 * difference the drift policy leaves alone is reported as pending; anything else is applied (and recorded, even
 * with no operations: a new target's no-op is a record).
 */
export function decideAfterDiff(
  memory: CycleMemory,
  input: {
    readonly operations: number;
    readonly snapshotId: string;
    readonly trigger: ApplyTrigger;
    readonly driftPolicy: DriftPolicy;
  },
): DiffDecision {
  const { operations, snapshotId, trigger, driftPolicy } = input;
  const last = memory.last;
  const fresh = last === null || last.snapshotId !== snapshotId;
  if (operations === 0 && !fresh && last.status !== 'partial' && last.status !== 'failed')
    return { kind: 'in-sync', pending: 0, clearRetries: true };
  if (operations > 0 && !mayConverge({ trigger, targetId: snapshotId, last, driftPolicy }))
    return { kind: 'in-sync', pending: operations, clearRetries: false };
  return { kind: 'apply' };
}

/**
 * What the appliance holds after an apply, and so what is recorded as its read-back: nothing sent leaves what was
 * observed; every write acknowledged leaves the render; anything else must be read back.
 */
export function observedAfterSource(operations: number, allOk: boolean): 'observed' | 'rendered' | 'read-back' {
  if (operations === 0) return 'observed';
  return allOk ? 'rendered' : 'read-back';
}

/** The trigger an apply is recorded under. */
export function recordedTrigger(trigger: ApplyTrigger, origin: string): ApplyRecordInput['trigger'] {
  if (trigger === 'drift-correction') return 'drift-correction';
  if (trigger === 'retry') return 'retry';
  if (trigger === 'tidy') return 'tidy';
  return origin === 'rollback' ? 'rollback' : 'snapshot';
}

/** The reason an apply is recorded with: why it stopped short, or the operator's reason for a rollback. */
export function recordedReason(
  fenced: boolean,
  snapshot: { readonly origin: string; readonly reason?: string | null },
) {
  if (fenced) return 'leadership or epoch lost before every operation was sent';
  return snapshot.origin === 'rollback' ? (snapshot.reason ?? null) : null;
}
