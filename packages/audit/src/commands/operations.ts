import type { CommandIo } from '../adapters/command-io.ts';
import { buildOperationsReport, formatOperationsTable } from '../core/operations-report.ts';
import {
  CommandFailed,
  commonOptions,
  outputFormat,
  parseCommand,
  printReport,
  requireAppliance,
  withContext,
} from './audit-context.ts';

/** `portolan operations <appliance> <apply>`: every operation one apply sent, payloads included, with its result. */
export async function runOperations(args: readonly string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommand(args, commonOptions, { min: 2, max: 2, names: 'appliance and apply' });
  const format = outputFormat(values.output);
  const [appliance, id] = [positionals[0]!, positionals[1]!];
  return withContext(io, 'operations', values.config, async (ctx) => {
    requireAppliance(ctx, appliance);
    const found = await ctx.store.applyWithOperations(id);
    if (found === null)
      throw new CommandFailed(
        `unknown apply "${id}"${/^\d+$/.test(id) ? '' : ' (applies are numbered; `portolan history <appliance>` lists them)'}`,
      );
    if (found.appliance !== appliance)
      throw new CommandFailed(`apply ${id} belongs to appliance "${found.appliance}", not "${appliance}"`);
    printReport(
      io,
      format,
      buildOperationsReport(appliance, found.apply, found.operations, found.results),
      formatOperationsTable,
    );
    return 0;
  });
}
