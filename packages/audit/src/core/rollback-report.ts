import type { SnapshotRecord } from './history-report.ts';
import type { DiffReport, SnapshotHeader } from './snapshot-views.ts';

/** The snapshot a rollback appends: the target's content on top of the head, origin `rollback`, with the reason. */
export interface RollbackSnapshot {
  readonly appliance: string;
  readonly contentHash: string;
  readonly rootHash: string;
  readonly parentId: string;
  readonly lastEventSeq: number;
  readonly fleetConfigHash: string;
  readonly plannerVersion: string;
  readonly held: false;
  readonly holdReason: null;
  readonly origin: 'rollback';
  readonly reason: string;
  readonly traceId: null;
}

/**
 * A rollback appends, it never rewrites: the new head has the target's content (same pieces, same hash) and
 * extends the current head, so history keeps both the plan that was undone and the undo. It keeps the head's
 * event position, fleet-config hash and planner version: nothing about the inputs changed.
 */
export function rollbackSnapshot(head: SnapshotRecord, target: SnapshotRecord, reason: string): RollbackSnapshot {
  return {
    appliance: head.appliance,
    contentHash: target.contentHash,
    rootHash: target.rootHash,
    parentId: head.id,
    lastEventSeq: head.lastEventSeq,
    fleetConfigHash: head.fleetConfigHash,
    plannerVersion: head.plannerVersion,
    held: false,
    holdReason: null,
    origin: 'rollback',
    reason,
    traceId: null,
  };
}

/** `portolan rollback` as data. */
export interface RollbackReport {
  readonly appliance: string;
  readonly from: SnapshotHeader;
  readonly to: SnapshotHeader;
  readonly diff: DiffReport;
  /** The appended rollback snapshot; null when the operator declined. */
  readonly rollbackSnapshot: string | null;
  readonly reason: string;
  /** Who asked for it (recorded with the pin and in `operator_actions`). */
  readonly actor: string;
  readonly pinned: boolean;
  /** With a wait: the apply of the rollback snapshot (null: none within the wait). */
  readonly apply: {
    readonly id: string;
    readonly status: string;
    readonly epoch: number;
    readonly finishedAt: string;
    readonly reason: string | null;
  } | null;
}

/** Text after the diff: what was done and what happens next. */
export function formatRollbackOutcome(r: RollbackReport, waited: boolean): string {
  if (r.rollbackSnapshot === null) return 'Rollback aborted: nothing was changed.\n';
  let out = `Appended rollback snapshot ${r.rollbackSnapshot} (content of snapshot ${r.to.id}, reason: ${r.reason}) on top of ${r.from.id}, by ${r.actor}.\n`;
  out += `${r.appliance} is pinned: new plans are recorded but held until \`portolan resume ${r.appliance}\`.\n`;
  if (waited)
    out +=
      r.apply === null
        ? 'No apply of the rollback snapshot was recorded within the wait; check `portolan status`.\n'
        : `Applied by apply ${r.apply.id}: ${r.apply.status} (epoch ${r.apply.epoch}, finished ${r.apply.finishedAt}).\n`;
  else out += 'The applier leader applies it like any snapshot; follow it with `portolan history`.\n';
  return out;
}
