import { setTimeout as sleep } from 'node:timers/promises';
import { PgApprovalProgress, recordOperatorAction, type RecordedHold } from '@portolan/store';
import { publishApproval } from '../adapters/approval-publisher.ts';
import type { ApproveReport } from '../core/approve-report.ts';
import { requireAppliance, type AuditContext } from './audit-context.ts';
import { requireOperatorWrite, type OperatorWrite } from './operator-write.ts';

/** An approval: the appliance, who and why, and how long to wait for the planner and the leader. */
export interface ApproveParams extends OperatorWrite {
  readonly appliance: string;
  /** How long to wait for the planner to fold it and, again, for the leader to apply it (default 10 s each). */
  readonly waitMs?: number;
}

/**
 * Approves the removals the safety rule holds in the clusters the appliance serves: publishes a HoldApproved
 * (approvedBy: the actor) into the event log, records the operator action, then waits for the planner to release
 * the holds and for the leader to apply the result. With nothing held, nothing is published; the action is still
 * recorded, so the audit shows the operator looked and why.
 */
export async function approve(ctx: AuditContext, params: ApproveParams): Promise<ApproveReport> {
  const { reason, actor } = requireOperatorWrite(params);
  const { appliance } = params;
  const entry = requireAppliance(ctx, appliance);
  const clusters = entry.clusters ?? ctx.fleet.config.clusters.map((c) => c.name);
  const progress = new PgApprovalProgress(ctx.db);
  const open = await progress.openHolds(clusters);
  const base = { appliance, clusters, actor, reason, held: open.map(heldView) };
  const record = (approvalSeq: number | null) =>
    recordOperatorAction(ctx.db, {
      actor,
      action: 'approve',
      appliance,
      reason,
      targetSnapshotId: null,
      resultSnapshotId: null,
      approvalSeq,
    });
  if (open.length === 0) {
    await record(null);
    return { ...base, approval: null, released: null, apply: null };
  }
  const publishedAt = performance.now();
  const seq = await publishApproval(ctx.fleet.config, { appliance, approvedBy: actor, reason });
  await record(seq);
  const waitMs = params.waitMs ?? 10_000;
  const released = await waitFor(waitMs, async () => {
    const rows = await progress.releasedBy(seq);
    return rows.length > 0 ? rows : null;
  });
  const applied = released === null ? null : await waitFor(waitMs, () => progress.firstApplyFrom(appliance, seq));
  return {
    ...base,
    approval: { seq },
    released:
      released?.map((h) => ({ cluster: h.cluster, kind: h.kind, object: h.objectKey, removed: h.removed })) ?? null,
    apply: applied === null ? null : { ...applied, afterMs: Math.round(performance.now() - publishedAt) },
  };
}

function heldView(h: RecordedHold): ApproveReport['held'][number] {
  return { cluster: h.cluster, kind: h.kind, object: h.objectKey, since: h.heldAt.toISOString(), reason: h.reason };
}

/** Polls `probe` every 100 ms until it returns a value or `ms` pass (then null). */
async function waitFor<T>(ms: number, probe: () => Promise<T | null>): Promise<T | null> {
  const deadline = performance.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== null || performance.now() >= deadline) return v;
    await sleep(100);
  }
}
