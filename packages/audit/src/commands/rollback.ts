import { setTimeout as sleep } from 'node:timers/promises';
import { HeadMovedError, PgPlannerStore } from '@portolan/planner';
import type { CommandIo } from '../adapters/command-io.ts';
import { APPLIED_STATUSES } from '../adapters/pg-audit-store.ts';
import type { ApplyRecord, SnapshotRecord } from '../core/history-report.ts';
import { renderReport } from '../core/output-format.ts';
import { formatRollbackOutcome, rollbackSnapshot, type RollbackReport } from '../core/rollback-report.ts';
import { formatDiffTable, snapshotHeader } from '../core/snapshot-views.ts';
import { AuditUsageError } from '../errors.ts';
import {
  CommandFailed,
  commonOptions,
  outputFormat,
  parseCommand,
  requireAppliance,
  requireSnapshot,
  withContext,
  type AuditContext,
} from './audit-context.ts';
import { diffReport } from './diff.ts';

/**
 * `portolan rollback <appliance> --to <snapshot> [--reason …] [--yes] [--wait S]`: shows the diff head → target,
 * asks (or needs --yes without a terminal), pins the appliance, then appends a rollback snapshot with the
 * target's content. The applier leader applies it like any snapshot.
 */
export async function runRollback(args: readonly string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommand(
    args,
    {
      ...commonOptions,
      to: { type: 'string' },
      reason: { type: 'string' },
      yes: { type: 'boolean', short: 'y' },
      wait: { type: 'string' },
    },
    { min: 1, max: 1, names: 'appliance' },
  );
  const format = outputFormat(values.output);
  if (typeof values.to !== 'string') throw new AuditUsageError('--to <snapshot> is required');
  const waitMs = typeof values.wait === 'string' ? Number(values.wait) * 1000 : 0;
  if (!Number.isFinite(waitMs) || waitMs < 0)
    throw new AuditUsageError(`--wait ${String(values.wait)}: seconds expected`);
  const appliance = positionals[0]!;
  return withContext(io, 'rollback', values.config, async (ctx) => {
    requireAppliance(ctx, appliance);
    const target = await requireSnapshot(ctx, values.to as string, appliance);
    const head = await ctx.store.head(appliance);
    if (head === null) throw new CommandFailed(`appliance "${appliance}" has no snapshot yet`);
    const reason =
      typeof values.reason === 'string' && values.reason.trim() !== ''
        ? values.reason.trim()
        : `rollback to snapshot ${target.id}`;
    const diff = await diffReport(ctx, head, target);
    if (format === 'table') io.stdout.write(formatDiffTable(diff));
    const base: RollbackReport = {
      appliance,
      from: snapshotHeader(head),
      to: snapshotHeader(target),
      diff,
      rollbackSnapshot: null,
      reason,
      pinned: false,
      apply: null,
    };
    if (values.yes !== true) {
      if (!io.stdinIsTty) {
        io.stderr.write(
          'portolan rollback: refusing to roll back without --yes: stdin is not a terminal (nothing was changed)\n',
        );
        return 1;
      }
      const answer = (await io.ask(`\nRoll ${appliance} back to snapshot ${target.id} and pin its planning? [y/N] `))
        .trim()
        .toLowerCase();
      if (answer !== 'y' && answer !== 'yes') {
        io.stdout.write(format === 'table' ? formatRollbackOutcome(base, false) : renderReport(format, base, () => ''));
        return 1;
      }
    }
    const id = await pinAndAppend(ctx, appliance, target, reason);
    const apply = waitMs > 0 ? await waitForApply(ctx, id, waitMs) : null;
    const report: RollbackReport = {
      ...base,
      rollbackSnapshot: id,
      pinned: true,
      apply:
        apply === null
          ? null
          : {
              id: apply.id,
              status: apply.status,
              epoch: apply.epoch,
              finishedAt: apply.finishedAt.toISOString(),
              reason: apply.reason,
            },
    };
    io.stdout.write(
      format === 'table' ? `\n${formatRollbackOutcome(report, waitMs > 0)}` : renderReport(format, report, () => ''),
    );
    return waitMs > 0 && (apply === null || !['succeeded', 'noop'].includes(apply.status)) ? 1 : 0;
  });
}

/**
 * Pins first (so a plan committed meanwhile is already held), then appends on top of the current head, retrying
 * when the planner moved the head in between. If the append cannot be made, the previous pin state is restored.
 */
async function pinAndAppend(
  ctx: AuditContext,
  appliance: string,
  target: SnapshotRecord,
  reason: string,
): Promise<string> {
  const previousPin = await ctx.store.pin(appliance);
  await ctx.store.setPin(appliance, target.id, reason);
  const planner = new PgPlannerStore(ctx.db);
  try {
    for (let attempt = 0; ; attempt++) {
      const head = await ctx.store.head(appliance);
      if (head === null) throw new CommandFailed(`appliance "${appliance}" lost its head`);
      try {
        return await planner.appendOne({ ...rollbackSnapshot(head, target, reason), pieces: new Map() });
      } catch (e) {
        if (!(e instanceof HeadMovedError) || attempt >= 4) throw e;
      }
    }
  } catch (e) {
    if (previousPin === null) await ctx.store.removePin(appliance);
    else await ctx.store.setPin(appliance, previousPin.snapshotId, previousPin.reason);
    throw e instanceof HeadMovedError
      ? new CommandFailed(`the head of ${appliance} kept moving; nothing was changed (${e.message})`)
      : e;
  }
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
