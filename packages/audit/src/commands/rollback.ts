import { setTimeout as sleep } from 'node:timers/promises';
import { HeadMovedError } from '@portolan/store';
import type { CommandIo } from '../adapters/command-io.ts';
import { APPLIED_STATUSES } from '../adapters/pg-audit-store.ts';
import type { ApplyRecord, SnapshotRecord } from '../core/history-report.ts';
import { renderReport, type OutputFormat } from '../core/output-format.ts';
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
  const { appliance, format, waitMs, to, reason: given, config, yes } = parseRollback(args);
  return withContext(io, 'rollback', config, async (ctx) => {
    requireAppliance(ctx, appliance);
    const target = await requireSnapshot(ctx, to, appliance);
    const head = await ctx.store.head(appliance);
    if (head === null) throw new CommandFailed(`appliance "${appliance}" has no snapshot yet`);
    const reason = given ?? `rollback to snapshot ${target.id}`;
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
    if (!yes && !(await confirmed(io, base, format))) return 1;
    const id = await pinAndAppend(ctx, appliance, target, reason);
    const apply = waitMs > 0 ? await waitForApply(ctx, id, waitMs) : null;
    const report: RollbackReport = { ...base, rollbackSnapshot: id, pinned: true, apply: applySummary(apply) };
    io.stdout.write(
      format === 'table' ? `\n${formatRollbackOutcome(report, waitMs > 0)}` : renderReport(format, report, () => ''),
    );
    return waitMs > 0 && (apply === null || !['succeeded', 'noop'].includes(apply.status)) ? 1 : 0;
  });
}

/** The command line of `portolan rollback`. */
interface RollbackArgs {
  readonly appliance: string;
  readonly format: OutputFormat;
  readonly waitMs: number;
  readonly to: string;
  /** The operator's reason, or null when none was given. */
  readonly reason: string | null;
  readonly config: unknown;
  readonly yes: boolean;
}

/** Parses `portolan rollback`'s arguments; mistakes are usage errors. */
function parseRollback(args: readonly string[]): RollbackArgs {
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
  if (typeof values.to !== 'string') throw new AuditUsageError('--to <snapshot> is required');
  const waitMs = typeof values.wait === 'string' ? Number(values.wait) * 1000 : 0;
  if (!Number.isFinite(waitMs) || waitMs < 0)
    throw new AuditUsageError(`--wait ${String(values.wait)}: seconds expected`);
  return {
    appliance: positionals[0]!,
    format: outputFormat(values.output),
    waitMs,
    to: values.to,
    reason: typeof values.reason === 'string' && values.reason.trim() !== '' ? values.reason.trim() : null,
    config: values.config,
    yes: values.yes === true,
  };
}

/**
 * Asks the operator on a terminal; without one (and without --yes) refuses. A "no" prints what would have been
 * done. False: nothing may change.
 */
async function confirmed(io: CommandIo, base: RollbackReport, format: OutputFormat): Promise<boolean> {
  if (!io.stdinIsTty) {
    io.stderr.write(
      'portolan rollback: refusing to roll back without --yes: stdin is not a terminal (nothing was changed)\n',
    );
    return false;
  }
  const answer = (await io.ask(`\nRoll ${base.appliance} back to snapshot ${base.to.id} and pin its planning? [y/N] `))
    .trim()
    .toLowerCase();
  if (answer === 'y' || answer === 'yes') return true;
  io.stdout.write(format === 'table' ? formatRollbackOutcome(base, false) : renderReport(format, base, () => ''));
  return false;
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
  try {
    for (let attempt = 0; ; attempt++) {
      const head = await ctx.store.head(appliance);
      if (head === null) throw new CommandFailed(`appliance "${appliance}" lost its head`);
      try {
        return await ctx.heads.append({ ...rollbackSnapshot(head, target, reason), pieces: new Map() });
      } catch (e) {
        if (!(e instanceof HeadMovedError) || attempt >= 4) throw e;
      }
    }
  } catch (e) {
    if (previousPin === null) await ctx.store.removePin(appliance);
    else await ctx.store.setPin(appliance, previousPin.snapshotId, previousPin.reason);
    throw e instanceof HeadMovedError
      ? new CommandFailed(`the head of ${appliance} kept moving; nothing was changed (${e.message})`, { cause: e })
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
