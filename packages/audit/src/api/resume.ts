import {
  appendSnapshotIn,
  HeadMovedError,
  pinHoldReason,
  recordOperatorAction,
  sql,
  type Database,
  type SnapshotPin,
  type Transaction,
} from '@portolan/store';
import { PgAuditStore } from '../adapters/pg-audit-store.ts';
import { requireAppliance, type AuditContext } from './audit-context.ts';
import { requireOperatorWrite, type OperatorWrite } from './operator-write.ts';

/** `resume` as data. */
export interface ResumeReport {
  readonly appliance: string;
  /** The pin that was removed (null: the appliance was not pinned). */
  readonly unpinned: {
    readonly snapshotId: string;
    readonly reason: string | null;
    readonly since: string;
    readonly actor: string | null;
  } | null;
  /** When the head was a plan held by the pin: the unheld copy appended so the current plan applies now. */
  readonly released: string | null;
  readonly reason: string;
  readonly actor: string;
}

/**
 * Removes an appliance's rollback pin. If the planner made snapshots while pinned (held with "pinned by rollback
 * to …"), the newest one's content is appended unheld, carrying the reason, so the appliance converges to current
 * planning at once instead of at the next Kubernetes change. The operator action is recorded in the same
 * transaction, also when there was no pin.
 */
export async function resume(
  ctx: AuditContext,
  params: OperatorWrite & { readonly appliance: string },
): Promise<ResumeReport> {
  const { reason, actor } = requireOperatorWrite(params);
  const { appliance } = params;
  requireAppliance(ctx, appliance);
  const { pin, released } = await ctx.db.transaction().execute(async (tx) => {
    const pin = await new PgAuditStore(tx).removePin(appliance);
    const released = pin === null ? null : await releaseHeldPlan(tx, pin, reason);
    await recordOperatorAction(tx, {
      actor,
      action: 'resume',
      appliance,
      reason,
      targetSnapshotId: pin?.snapshotId ?? null,
      resultSnapshotId: released,
      approvalSeq: null,
    });
    return { pin, released };
  });
  return {
    appliance,
    unpinned:
      pin === null
        ? null
        : { snapshotId: pin.snapshotId, reason: pin.reason, since: pin.createdAt.toISOString(), actor: pin.actor },
    released,
    reason,
    actor,
  };
}

/** Appends the held head again, unheld, when the pin held it; null when there was nothing to release. */
async function releaseHeldPlan(tx: Transaction<Database>, pin: SnapshotPin, reason: string): Promise<string | null> {
  const head = await new PgAuditStore(tx).head(pin.appliance);
  const heldByPin =
    head !== null &&
    head.held &&
    (head.holdReason === pinHoldReason(pin) || (head.holdReason ?? '').startsWith('pinned by rollback'));
  if (!heldByPin) return null;
  // A savepoint, so a lost race undoes only the append: the pin removal and the action still commit.
  await sql`SAVEPOINT release_held_plan`.execute(tx);
  try {
    return await appendSnapshotIn(tx, {
      appliance: pin.appliance,
      contentHash: head.contentHash,
      rootHash: head.rootHash,
      pieces: new Map(),
      parentId: head.id,
      lastEventSeq: head.lastEventSeq,
      fleetConfigHash: head.fleetConfigHash,
      plannerVersion: head.plannerVersion,
      held: false,
      holdReason: null,
      origin: 'plan',
      reason,
      traceId: null,
    });
  } catch (e) {
    // The planner moved the head first: its new snapshot is unheld now that the pin is gone.
    if (!(e instanceof HeadMovedError)) throw e;
    await sql`ROLLBACK TO SAVEPOINT release_held_plan`.execute(tx);
    return null;
  }
}
