import type { CommandIo } from '../adapters/command-io.ts';
import { statusReport } from '../api/status-report.ts';
import { formatStatusTable } from '../core/status-report.ts';
import { commonOptions, outputFormat, parseCommand, printReport, withContext } from './command-shell.ts';

/** `portolan status`: cluster watch freshness, planner progress, appliance leaders and apply lag, stream and consumer lag. */
export async function runStatus(args: readonly string[], io: CommandIo): Promise<number> {
  const { values } = parseCommand(args, { ...commonOptions }, { min: 0, max: 0, names: '' });
  const format = outputFormat(values.output);
  return withContext(io, 'status', values.config, async (ctx) => {
    const report = await statusReport(ctx, io.now());
    printReport(io, format, report, formatStatusTable);
    return report.problems.length === 0 ? 0 : 1;
  });
}
