/** A snapshot as the applier sees it before decoding: identity, hash and the planner's safety hold. */
export interface SnapshotHeader {
  readonly id: string;
  readonly hash: string;
  readonly held: boolean;
  readonly holdReason: string | null;
  /** When the head is held: the newest snapshot of the chain that is not (a rollback target, say). */
  readonly newestUnheldId?: string | null;
  /** The trace headers it was announced with (`traceparent`, `tracestate`): the planning's trace, which a cycle continues. */
  readonly traceContext?: Readonly<Record<string, string>> | null;
}

/** What the applier should converge the appliance to, and whether a new hold must be recorded. */
export interface ApplyTarget {
  /** Snapshot to converge to; null when there is nothing to apply yet. */
  readonly snapshotId: string | null;
  /** A held head whose hold has not been recorded yet (recorded once per snapshot). */
  readonly holdToRecord: SnapshotHeader | null;
}

/**
 * Chooses the target: the head, unless it is held by the safety rule — then the appliance keeps converging to
 * the last applied snapshot (a held plan never reaches the appliance without an override) and the hold is
 * recorded once.
 */
export function decideApplyTarget(
  head: SnapshotHeader | null,
  lastAppliedSnapshotId: string | null,
  recordedHolds: ReadonlySet<string>,
): ApplyTarget {
  if (head === null) return { snapshotId: lastAppliedSnapshotId, holdToRecord: null };
  if (!head.held) return { snapshotId: head.id, holdToRecord: null };
  // Held head: converge to the newest unheld snapshot (e.g. a rollback target appended before a pinned plan), unless
  // what was last applied is newer still (an approved snapshot). Snapshot ids grow along the chain.
  const unheld = head.newestUnheldId ?? null;
  const target =
    unheld !== null && (lastAppliedSnapshotId === null || BigInt(unheld) > BigInt(lastAppliedSnapshotId))
      ? unheld
      : lastAppliedSnapshotId;
  return { snapshotId: target, holdToRecord: recordedHolds.has(head.id) ? null : head };
}

/** What started an apply cycle. */
/** `tidy`: redo a provisional render (see DriverCore.provisional) once the change it served has settled. */
export type ApplyTrigger = 'start' | 'snapshot' | 'retry' | 'leadership' | 'poll' | 'drift-correction' | 'tidy';

/**
 * Whether a cycle may write the difference it found. A new target, an unfinished last apply (partial, failed),
 * a drift correction or a tidy render always may; otherwise the difference is out-of-band drift, which the `report` policy
 * leaves alone (the drift check records it) and the `correct` policy converges.
 */
export function mayConverge(input: {
  readonly trigger: ApplyTrigger;
  readonly targetId: string;
  readonly last: { readonly snapshotId: string; readonly status: string } | null;
  readonly driftPolicy: 'correct' | 'report';
}): boolean {
  const { trigger, targetId, last, driftPolicy } = input;
  if (trigger === 'drift-correction' || trigger === 'tidy' || driftPolicy === 'correct') return true;
  if (last === null || last.snapshotId !== targetId) return true;
  return last.status === 'partial' || last.status === 'failed';
}
