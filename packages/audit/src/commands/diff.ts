import type { CommandIo } from '../adapters/command-io.ts';
import { diffReport } from '../api/diff-report.ts';
import { formatDiffTable } from '../core/snapshot-views.ts';
import { commonOptions, outputFormat, parseCommand, printReport, withContext } from './command-shell.ts';

/** `portolan diff <a> <b>`: object-level changes from a to b and the vendor operations a push would make. */
export async function runDiff(args: readonly string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommand(
    args,
    { ...commonOptions },
    { min: 2, max: 2, names: 'two snapshots (from and to)' },
  );
  const format = outputFormat(values.output);
  return withContext(io, 'diff', values.config, async (ctx) => {
    printReport(io, format, await diffReport(ctx, positionals[0]!, positionals[1]!), formatDiffTable);
    return 0;
  });
}
