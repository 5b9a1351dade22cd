import type { CommandIo } from '../adapters/command-io.ts';
import { atReport } from '../api/at-report.ts';
import { formatAtTable } from '../core/at-report.ts';
import { AuditUsageError } from '../errors.ts';
import { commonOptions, outputFormat, parseCommand, printReport, timeOption, withContext } from './command-shell.ts';

/** `portolan at <appliance> --time T`: the configuration the appliance had at T, from the apply log. */
export async function runAt(args: readonly string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommand(
    args,
    { ...commonOptions, time: { type: 'string', short: 't' } },
    { min: 1, max: 1, names: 'appliance' },
  );
  const format = outputFormat(values.output);
  const time = timeOption(io, 'time', values.time);
  if (time === null) throw new AuditUsageError('--time is required');
  return withContext(io, 'at', values.config, async (ctx) => {
    printReport(io, format, await atReport(ctx, positionals[0]!, time), formatAtTable);
    return 0;
  });
}
