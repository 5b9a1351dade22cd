import type { ObjectChange } from './archived-change.ts';
import { formatObject } from './archived-change.ts';

/** A snapshot row as the audit reads it. */
export interface SnapshotRecord {
  readonly id: string;
  readonly appliance: string;
  readonly parentId: string | null;
  readonly contentHash: string;
  readonly rootHash: string;
  readonly lastEventSeq: number;
  readonly held: boolean;
  readonly holdReason: string | null;
  readonly origin: string;
  readonly reason: string | null;
  readonly createdAt: Date;
  readonly traceId: string | null;
  readonly plannerVersion: string;
  readonly fleetConfigHash: string;
}

/** An apply row as the audit reads it. */
export interface ApplyRecord {
  readonly id: string;
  readonly snapshotId: string;
  readonly epoch: number;
  readonly leaderId: string;
  readonly trigger: string;
  readonly status: string;
  readonly operations: number;
  readonly failed: number;
  readonly reason: string | null;
  readonly startedAt: Date;
  readonly finishedAt: Date;
  readonly traceId: string | null;
  readonly observedAfterHash: string | null;
}

/** A drift observation as the audit reads it. */
export interface DriftRecord {
  readonly id: string;
  readonly snapshotId: string | null;
  readonly objects: readonly string[];
  readonly action: string;
  readonly observedAt: Date;
}

/** A removal the safety rule held in a cluster the appliance serves, and how the hold ended (if it did). */
export interface HoldRecord {
  readonly id: string;
  readonly cluster: string;
  readonly kind: string;
  readonly objectKey: string;
  readonly reason: string;
  readonly heldAt: Date;
  readonly heldSeq: number;
  readonly releasedAt: Date | null;
  readonly releasedSeq: number | null;
  readonly releasedBy: string | null;
  readonly releaseReason: string | null;
  readonly removed: boolean | null;
}

/** An operator's approve, rollback or resume as the audit reads it (the `operator_actions` row). */
export interface OperatorActionRecord {
  readonly id: string;
  readonly at: Date;
  readonly actor: string;
  readonly action: 'approve' | 'rollback' | 'resume';
  readonly reason: string;
  readonly targetSnapshotId: string | null;
  readonly resultSnapshotId: string | null;
  readonly approvalSeq: number | null;
}

/** What caused a snapshot: the archived events folded since the previous snapshot, and the objects they changed. */
export interface SnapshotCause {
  /** Stream sequences (from, to]: what the planner folded between the parent and this snapshot. */
  readonly fromSeq: number;
  readonly toSeq: number;
  readonly events: number;
  /** Changes that touch objects the appliance's plans name (all changes when none does). */
  readonly objects: readonly {
    readonly object: string;
    readonly resourceVersion: string;
    readonly event: string;
    readonly seq: number;
    readonly traceId: string | null;
  }[];
  /** False when no change touched a named object and every change in the range is listed. */
  readonly filtered: boolean;
}

/** One line of an appliance's history. */
export type HistoryEntry =
  | {
      readonly type: 'snapshot';
      readonly at: string;
      readonly id: string;
      readonly parent: string | null;
      readonly origin: string;
      readonly held: boolean;
      readonly holdReason: string | null;
      readonly reason: string | null;
      readonly contentHash: string;
      readonly traceId: string | null;
      readonly cause: SnapshotCause;
    }
  | {
      readonly type: 'apply';
      readonly at: string;
      readonly id: string;
      readonly snapshot: string;
      readonly epoch: number;
      readonly leader: string;
      readonly trigger: string;
      readonly status: string;
      readonly operations: number;
      readonly failed: number;
      readonly reason: string | null;
      readonly traceId: string | null;
      readonly startedAt: string;
      readonly rollbackReason: string | null;
    }
  | {
      readonly type: 'drift';
      readonly at: string;
      readonly id: string;
      readonly snapshot: string | null;
      readonly objects: readonly string[];
      readonly action: string;
    }
  | {
      readonly type: 'hold';
      readonly at: string;
      readonly id: string;
      readonly seq: number;
      readonly object: string;
      readonly reason: string;
    }
  | OperatorEntry
  | {
      readonly type: 'release';
      readonly at: string;
      readonly id: string;
      readonly seq: number;
      readonly object: string;
      readonly by: string | null;
      readonly reason: string;
      readonly removed: boolean | null;
    };

/** An operator's write in the history: who, why, and the snapshots or approval it involved. */
export interface OperatorEntry {
  readonly type: 'approval' | 'rollback' | 'resume';
  readonly at: string;
  readonly id: string;
  /** The authenticated identity that made it, e.g. `alice (token)`. */
  readonly actor: string;
  readonly reason: string;
  /** Rollback: the snapshot rolled back to; resume: the one the removed pin named. */
  readonly snapshot: string | null;
  /** Rollback: the appended rollback snapshot; resume: the released plan. */
  readonly resultSnapshot: string | null;
  /** Approve: the approval's stream sequence (null: nothing was held, nothing published). */
  readonly approvalSeq: number | null;
}

/** The history report: the appliance, the window, and its entries oldest first. */
export interface HistoryReport {
  readonly appliance: string;
  readonly since: string | null;
  readonly until: string | null;
  readonly entries: readonly HistoryEntry[];
}

/** The cause of a snapshot from the changes in its sequence range (relevant = touches the appliance's objects). */
export function snapshotCause(
  fromSeq: number,
  toSeq: number,
  changes: readonly ObjectChange[],
  relevant: (c: ObjectChange) => boolean,
  total: number,
): SnapshotCause {
  const kept = changes.filter(relevant);
  const list = kept.length > 0 ? kept : changes;
  return {
    fromSeq,
    toSeq,
    events: total,
    filtered: kept.length > 0,
    objects: list.map((c) => ({
      object: formatObject(c),
      resourceVersion: c.resourceVersion,
      event: c.event,
      seq: c.seq,
      traceId: c.traceId,
    })),
  };
}

/** What `buildHistory` merges: the appliance's snapshots, applies, drift and holds in a time window. */
export interface HistoryInput {
  readonly appliance: string;
  readonly since: Date | null;
  readonly until: Date | null;
  readonly snapshots: readonly { readonly record: SnapshotRecord; readonly cause: SnapshotCause }[];
  readonly applies: readonly ApplyRecord[];
  readonly drift: readonly DriftRecord[];
  /** The operator's reason of each rollback snapshot by id (shown on the applies that pushed it). */
  readonly rollbackReasons?: ReadonlyMap<string, string | null>;
  /** The safety rule's holds in the appliance's clusters (each gives a hold entry and, once ended, a release entry). */
  readonly holds?: readonly HoldRecord[];
  /** Operators' approvals, rollbacks and resumes of the appliance. */
  readonly actions?: readonly OperatorActionRecord[];
}

/**
 * Merges snapshots, applies, drift, holds and operator actions into one time-ordered list. Ties (a rollback's action
 * and snapshot share their transaction's time): holds, then operator actions, snapshots, applies, drift, by id.
 */
export function buildHistory(input: HistoryInput): HistoryReport {
  const rank = { hold: 0, release: 0, approval: 1, rollback: 1, resume: 1, snapshot: 2, apply: 3, drift: 4 } as const;
  const entries: HistoryEntry[] = [
    ...input.snapshots.map(({ record, cause }) => snapshotEntry(record, cause)),
    ...input.applies.map((a) => applyEntry(a, input.rollbackReasons?.get(a.snapshotId) ?? null)),
    ...input.drift.map((d): HistoryEntry => ({
      type: 'drift',
      at: d.observedAt.toISOString(),
      id: d.id,
      snapshot: d.snapshotId,
      objects: d.objects,
      action: d.action,
    })),
    ...(input.holds ?? []).flatMap((h) => holdEntries(h, input.since, input.until)),
    ...(input.actions ?? []).map(operatorEntry),
  ];
  entries.sort((a, b) =>
    a.at < b.at ? -1 : a.at > b.at ? 1 : rank[a.type] - rank[b.type] || Number(a.id) - Number(b.id),
  );
  return {
    appliance: input.appliance,
    since: input.since?.toISOString() ?? null,
    until: input.until?.toISOString() ?? null,
    entries,
  };
}

function snapshotEntry(s: SnapshotRecord, cause: SnapshotCause): HistoryEntry {
  return {
    type: 'snapshot',
    at: s.createdAt.toISOString(),
    id: s.id,
    parent: s.parentId,
    origin: s.origin,
    held: s.held,
    holdReason: s.holdReason,
    reason: s.reason,
    contentHash: s.contentHash,
    traceId: s.traceId,
    cause,
  };
}

function applyEntry(a: ApplyRecord, rollbackReason: string | null): HistoryEntry {
  return {
    type: 'apply',
    at: a.finishedAt.toISOString(),
    id: a.id,
    snapshot: a.snapshotId,
    epoch: a.epoch,
    leader: a.leaderId,
    trigger: a.trigger,
    status: a.status,
    operations: a.operations,
    failed: a.failed,
    reason: a.reason,
    traceId: a.traceId,
    startedAt: a.startedAt.toISOString(),
    rollbackReason,
  };
}

function operatorEntry(a: OperatorActionRecord): OperatorEntry {
  return {
    type: a.action === 'approve' ? 'approval' : a.action,
    at: a.at.toISOString(),
    id: a.id,
    actor: a.actor,
    reason: a.reason,
    snapshot: a.targetSnapshotId,
    resultSnapshot: a.resultSnapshotId,
    approvalSeq: a.approvalSeq,
  };
}

/** A hold's entry and, once it ended, its release entry: each only when it falls inside the window. */
function holdEntries(h: HoldRecord, since: Date | null, until: Date | null): HistoryEntry[] {
  const inWindow = (at: Date): boolean => (since === null || at >= since) && (until === null || at <= until);
  const object = `${h.cluster}/${h.kind}/${h.objectKey}`;
  const out: HistoryEntry[] = [];
  if (inWindow(h.heldAt))
    out.push({ type: 'hold', at: h.heldAt.toISOString(), id: h.id, seq: h.heldSeq, object, reason: h.reason });
  if (h.releasedAt !== null && inWindow(h.releasedAt)) {
    out.push({
      type: 'release',
      at: h.releasedAt.toISOString(),
      id: h.id,
      seq: h.releasedSeq ?? 0,
      object,
      by: h.releasedBy,
      reason: h.releaseReason ?? '',
      removed: h.removed,
    });
  }
  return out;
}

/** Whether an entry is an operator's approve, rollback or resume. */
export function isOperatorEntry(e: HistoryEntry): e is OperatorEntry {
  return e.type === 'approval' || e.type === 'rollback' || e.type === 'resume';
}
