import type { CommandIo } from '../adapters/command-io.ts';
import { rollback, rollbackApplied } from '../api/rollback.ts';
import { renderReport, type OutputFormat } from '../core/output-format.ts';
import { formatRollbackOutcome, type RollbackReport } from '../core/rollback-report.ts';
import { formatDiffTable } from '../core/snapshot-views.ts';
import { AuditUsageError } from '../errors.ts';
import { commonOptions, outputFormat, parseCommand, waitOption } from './command-shell.ts';
import { reasonOption, withOperator, writeOptions } from './operator-token.ts';

/**
 * `portolan rollback <appliance> --to <snapshot> --reason … [--yes] [--wait S]`: shows the diff head → target,
 * asks (or needs --yes without a terminal), then pins the appliance and appends a rollback snapshot with the
 * target's content. The applier leader applies it like any snapshot.
 */
export async function runRollback(args: readonly string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommand(
    args,
    {
      ...commonOptions,
      ...writeOptions,
      to: { type: 'string' },
      yes: { type: 'boolean', short: 'y' },
      wait: { type: 'string' },
    },
    { min: 1, max: 1, names: 'appliance' },
  );
  if (typeof values.to !== 'string') throw new AuditUsageError('--to <snapshot> is required');
  const to = values.to;
  const format = outputFormat(values.output);
  const waitMs = waitOption(values.wait, 0);
  const reason = reasonOption(values.reason);
  return withOperator(io, 'rollback', values, async (ctx, actor) => {
    const confirm = async (preview: RollbackReport): Promise<boolean> => {
      if (format === 'table') io.stdout.write(formatDiffTable(preview.diff));
      return values.yes === true || confirmed(io, preview, format);
    };
    const report = await rollback(ctx, { appliance: positionals[0]!, to, reason, actor, waitMs }, { confirm });
    if (report.rollbackSnapshot === null) return 1;
    io.stdout.write(
      format === 'table' ? `\n${formatRollbackOutcome(report, waitMs > 0)}` : renderReport(format, report, () => ''),
    );
    return waitMs > 0 && !rollbackApplied(report) ? 1 : 0;
  });
}

/**
 * Asks the operator on a terminal; without one (and without --yes) refuses. A "no" prints what would have been
 * done. False: nothing may change.
 */
async function confirmed(io: CommandIo, preview: RollbackReport, format: OutputFormat): Promise<boolean> {
  if (!io.stdinIsTty) {
    io.stderr.write(
      'portolan rollback: refusing to roll back without --yes: stdin is not a terminal (nothing was changed)\n',
    );
    return false;
  }
  const answer = (
    await io.ask(`\nRoll ${preview.appliance} back to snapshot ${preview.to.id} and pin its planning? [y/N] `)
  )
    .trim()
    .toLowerCase();
  if (answer === 'y' || answer === 'yes') return true;
  io.stdout.write(format === 'table' ? formatRollbackOutcome(preview, false) : renderReport(format, preview, () => ''));
  return false;
}
