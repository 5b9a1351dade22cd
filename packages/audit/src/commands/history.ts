import type { CommandIo } from '../adapters/command-io.ts';
import { historyReport } from '../api/history-report.ts';
import { formatHistoryTable } from '../core/history-table.ts';
import {
  commonOptions,
  outputFormat,
  parseCommand,
  printReport,
  terminalProgress,
  timeOption,
  withContext,
} from './command-shell.ts';

/**
 * `portolan history <appliance> [--since T] [--until T] [--object TEXT] [--kind K]…`: snapshots, applies, drift,
 * holds and operator actions in time order, with causes.
 */
export async function runHistory(args: readonly string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommand(
    args,
    {
      ...commonOptions,
      since: { type: 'string' },
      until: { type: 'string' },
      object: { type: 'string' },
      kind: { type: 'string', multiple: true },
    },
    { min: 1, max: 1, names: 'appliance' },
  );
  const format = outputFormat(values.output);
  const since = timeOption(io, 'since', values.since);
  const until = timeOption(io, 'until', values.until);
  return withContext(io, 'history', values.config, async (ctx) => {
    const report = await historyReport(
      ctx,
      {
        appliance: positionals[0]!,
        since,
        until,
        ...(values.object === undefined ? {} : { object: values.object }),
        ...(values.kind === undefined ? {} : { kinds: values.kind }),
      },
      { progress: terminalProgress(io) },
    );
    printReport(io, format, report, formatHistoryTable);
    return 0;
  });
}
