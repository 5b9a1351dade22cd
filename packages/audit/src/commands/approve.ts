import type { CommandIo } from '../adapters/command-io.ts';
import { approve } from '../api/approve.ts';
import { approvalFolded, formatApprove } from '../core/approve-report.ts';
import { commonOptions, outputFormat, parseCommand, printReport, waitOption } from './command-shell.ts';
import { reasonOption, withOperator, writeOptions } from './operator-token.ts';

/**
 * `portolan approve <appliance> --reason … [--wait S]`: approves the removals the safety rule holds for the
 * appliance, then reports what the planner released and the apply that followed. Exit 1 when the planner did not
 * fold the approval within the wait.
 */
export async function runApprove(args: readonly string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommand(
    args,
    { ...commonOptions, ...writeOptions, wait: { type: 'string' } },
    { min: 1, max: 1, names: 'appliance (an approval covers every removal held for it, not one snapshot)' },
  );
  const format = outputFormat(values.output);
  const waitMs = waitOption(values.wait, 10_000);
  const reason = reasonOption(values.reason);
  return withOperator(io, 'approve', values, async (ctx, actor) => {
    const report = await approve(ctx, { appliance: positionals[0]!, reason, actor, waitMs });
    printReport(io, format, report, formatApprove);
    if (approvalFolded(report)) return 0;
    io.stderr.write(
      `portolan approve: the planner has not folded approval ${report.approval?.seq} within ${waitMs / 1000} s; it will when it catches up (see portolan status)\n`,
    );
    return 1;
  });
}
