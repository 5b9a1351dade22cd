import type { CommandIo } from '../adapters/command-io.ts';
import { operationsReport } from '../api/operations-report.ts';
import { formatOperationsTable } from '../core/operations-report.ts';
import { commonOptions, outputFormat, parseCommand, printReport, withContext } from './command-shell.ts';

/** `portolan operations <appliance> <apply>`: every operation one apply sent, payloads included, with its result. */
export async function runOperations(args: readonly string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommand(args, commonOptions, { min: 2, max: 2, names: 'appliance and apply' });
  const format = outputFormat(values.output);
  return withContext(io, 'operations', values.config, async (ctx) => {
    const report = await operationsReport(ctx, { appliance: positionals[0]!, apply: positionals[1]! });
    printReport(io, format, report, formatOperationsTable);
    return 0;
  });
}
