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
  /** The copy of current planning appended unheld (the plan the pin held, or the one the rollback replaced). */
  readonly released: string | null;
  readonly reason: string;
  readonly actor: string;
}

/**
 * Removes an appliance's rollback pin and lets current planning through at once: the newest snapshot the planner
 * made while pinned (held with "pinned by rollback to …"), or, when it made none, the plan the rollback replaced,
 * is appended unheld, carrying the reason, instead of waiting for the next Kubernetes change. The operator action
 * is recorded in the same transaction, also when there was no pin.
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

/**
 * Appends current planning, unheld, on top of the head: the held head again when the pin held a plan, or — when the
 * planner made nothing while pinned and the head is the rollback itself — the newest plan before it. Null when
 * there was nothing to release.
 */
async function releaseHeldPlan(tx: Transaction<Database>, pin: SnapshotPin, reason: string): Promise<string | null> {
  const head = await new PgAuditStore(tx).head(pin.appliance);
  if (head === null) return null;
  const heldByPin =
    head.held && (head.holdReason === pinHoldReason(pin) || (head.holdReason ?? '').startsWith('pinned by rollback'));
  const plan = heldByPin
    ? head
    : head.origin === 'rollback'
      ? await newestPlanBefore(tx, head.id, pin.appliance)
      : null;
  if (plan === null || (plan !== head && plan.contentHash === head.contentHash)) return null;
  // A savepoint, so a lost race undoes only the append: the pin removal and the action still commit.
  await sql`SAVEPOINT release_held_plan`.execute(tx);
  try {
    return await appendSnapshotIn(tx, {
      appliance: pin.appliance,
      contentHash: plan.contentHash,
      rootHash: plan.rootHash,
      pieces: new Map(),
      parentId: head.id,
      lastEventSeq: head.lastEventSeq,
      fleetConfigHash: plan.fleetConfigHash,
      plannerVersion: plan.plannerVersion,
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

/** The newest snapshot the planner made for the appliance before `id` (its content is current planning). */
async function newestPlanBefore(
  tx: Transaction<Database>,
  id: string,
  appliance: string,
): Promise<{ contentHash: string; rootHash: string; fleetConfigHash: string; plannerVersion: string } | null> {
  const row = await tx
    .selectFrom('snapshots')
    .select(['content_hash', 'root_hash', 'fleet_config_hash', 'planner_version'])
    .where('appliance', '=', appliance)
    .where('origin', '=', 'plan')
    .where('id', '<', id)
    .orderBy('id', 'desc')
    .executeTakeFirst();
  return row === undefined
    ? null
    : {
        contentHash: row.content_hash,
        rootHash: row.root_hash,
        fleetConfigHash: row.fleet_config_hash,
        plannerVersion: row.planner_version,
      };
}
