import { setTimeout as sleep } from 'node:timers/promises';
import { appendSnapshotIn, HeadMovedError, recordOperatorAction } from '@portolan/store';
import { APPLIED_STATUSES } from '../adapters/pg-audit-store.ts';
import type { ApplyRecord, SnapshotRecord } from '../core/history-report.ts';
import { rollbackSnapshot, type RollbackReport } from '../core/rollback-report.ts';
import { snapshotHeader } from '../core/snapshot-views.ts';
import { CommandFailed } from '../errors.ts';
import { requireAppliance, requireHead, requireSnapshot, type AuditContext } from './audit-context.ts';
import { diffReport } from './diff-report.ts';
import { requireOperatorWrite, type OperatorWrite } from './operator-write.ts';

/** A rollback: the appliance, the snapshot whose content to push again, who and why, and how long to wait. */
export interface RollbackParams extends OperatorWrite {
  readonly appliance: string;
  readonly to: string;
  /** How long to wait for the leader's apply of the rollback snapshot (0: do not wait). */
  readonly waitMs?: number;
}

/** How many times the append is retried when the planner moves the head in between. */
const APPEND_ATTEMPTS = 5;

/**
 * Rolls an appliance back: pins its planning, then appends a snapshot with the target's content (origin
 * `rollback`, the reason) and records the operator action with it. The applier leader applies it like any
 * snapshot. `confirm` sees the report before anything is written (the diff head → target); false leaves everything
 * as it was and returns that report with no rollback snapshot.
 */
export async function rollback(
  ctx: AuditContext,
  params: RollbackParams,
  options: { readonly confirm?: (preview: RollbackReport) => Promise<boolean> } = {},
): Promise<RollbackReport> {
  const { reason, actor } = requireOperatorWrite(params);
  const { appliance } = params;
  requireAppliance(ctx, appliance);
  const target = await requireSnapshot(ctx, params.to, appliance);
  const head = await requireHead(ctx, appliance);
  const preview: RollbackReport = {
    appliance,
    from: snapshotHeader(head),
    to: snapshotHeader(target),
    diff: await diffReport(ctx, head, target),
    rollbackSnapshot: null,
    reason,
    actor,
    pinned: false,
    apply: null,
  };
  if (options.confirm !== undefined && !(await options.confirm(preview))) return preview;
  const id = await pinAndAppend(ctx, target, reason, actor);
  const waitMs = params.waitMs ?? 0;
  const apply = waitMs > 0 ? await waitForApply(ctx, id, waitMs) : null;
  return { ...preview, rollbackSnapshot: id, pinned: true, apply: applySummary(apply) };
}

/** Whether a rollback that waited saw its snapshot applied (succeeded or nothing to do). */
export function rollbackApplied(r: RollbackReport): boolean {
  return r.apply !== null && ['succeeded', 'noop'].includes(r.apply.status);
}

/**
 * Pins first (so a plan committed meanwhile is already held), then appends on top of the current head together
 * with the operator action, retrying when the planner moved the head in between. If the append cannot be made, the
 * previous pin state is restored and nothing else was written.
 */
async function pinAndAppend(ctx: AuditContext, target: SnapshotRecord, reason: string, actor: string): Promise<string> {
  const appliance = target.appliance;
  const previousPin = await ctx.store.pin(appliance);
  await ctx.store.setPin(appliance, target.id, reason, actor);
  try {
    for (let attempt = 1; ; attempt++) {
      const head = await requireHead(ctx, appliance);
      try {
        return await ctx.db.transaction().execute(async (tx) => {
          const id = await appendSnapshotIn(tx, { ...rollbackSnapshot(head, target, reason), pieces: new Map() });
          await recordOperatorAction(tx, {
            actor,
            action: 'rollback',
            appliance,
            reason,
            targetSnapshotId: target.id,
            resultSnapshotId: id,
            approvalSeq: null,
          });
          return id;
        });
      } catch (e) {
        if (!(e instanceof HeadMovedError) || attempt >= APPEND_ATTEMPTS) throw e;
      }
    }
  } catch (e) {
    if (previousPin === null) await ctx.store.removePin(appliance);
    else await ctx.store.setPin(appliance, previousPin.snapshotId, previousPin.reason, previousPin.actor);
    throw e instanceof HeadMovedError
      ? new CommandFailed('conflict', `the head of ${appliance} kept moving; nothing was changed (${e.message})`, {
          cause: e,
        })
      : e;
  }
}

/** The apply of the rollback snapshot as the report shows it. */
function applySummary(apply: ApplyRecord | null): RollbackReport['apply'] {
  return apply === null
    ? null
    : {
        id: apply.id,
        status: apply.status,
        epoch: apply.epoch,
        finishedAt: apply.finishedAt.toISOString(),
        reason: apply.reason,
      };
}

/** Polls the apply log until the rollback snapshot has a final apply (or the wait ends). */
async function waitForApply(ctx: AuditContext, snapshotId: string, waitMs: number): Promise<ApplyRecord | null> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const applies = await ctx.store.appliesOf(snapshotId);
    const done = applies.find(
      (a) => (APPLIED_STATUSES as readonly string[]).includes(a.status) || a.status === 'failed',
    );
    if (done !== undefined) return done;
    if (Date.now() >= deadline) return applies.at(-1) ?? null;
    await sleep(200);
  }
}
