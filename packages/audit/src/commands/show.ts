import type { CommandIo } from '../adapters/command-io.ts';
import { showReport } from '../api/show-report.ts';
import { formatShowTable } from '../core/snapshot-views.ts';
import { commonOptions, outputFormat, parseCommand, printReport, withContext } from './command-shell.ts';

/** `portolan show <snapshot> [--vendor]`: the desired state object by object (and the vendor objects it renders to). */
export async function runShow(args: readonly string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommand(
    args,
    { ...commonOptions, vendor: { type: 'boolean' } },
    { min: 1, max: 1, names: 'snapshot' },
  );
  const format = outputFormat(values.output);
  return withContext(io, 'show', values.config, async (ctx) => {
    const report = await showReport(ctx, { snapshot: positionals[0]!, vendor: values.vendor === true });
    printReport(io, format, report, formatShowTable);
    return 0;
  });
}
