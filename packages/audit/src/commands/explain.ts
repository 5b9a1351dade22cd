import type { CommandIo } from '../adapters/command-io.ts';
import { explainReport } from '../api/explain-report.ts';
import { formatExplainTable } from '../core/explain-report.ts';
import { CommandFailed } from '../errors.ts';
import {
  commonOptions,
  outputFormat,
  parseCommand,
  printReport,
  terminalProgress,
  withContext,
} from './command-shell.ts';

/** `portolan explain <appliance> <vendor object | host/path> [--snapshot id]`: where it comes from and when it last changed. */
export async function runExplain(args: readonly string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommand(
    args,
    {
      ...commonOptions,
      snapshot: { type: 'string' },
      header: { type: 'string', multiple: true },
      method: { type: 'string' },
    },
    { min: 2, max: 2, names: 'appliance and a vendor object or host/path' },
  );
  const format = outputFormat(values.output);
  return withContext(io, 'explain', values.config, async (ctx) => {
    const report = await explainReport(
      ctx,
      {
        appliance: positionals[0]!,
        query: positionals[1]!,
        ...(typeof values.snapshot === 'string' ? { snapshot: values.snapshot } : {}),
        ...(values.method === undefined ? {} : { method: values.method }),
        ...(values.header === undefined ? {} : { headers: headerOptions(values.header) }),
      },
      { progress: terminalProgress(io) },
    );
    printReport(io, format, report, formatExplainTable);
    return 0;
  });
}

/** `--header 'Name: value'` options as a record; a header without a name is refused. */
function headerOptions(headers: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of headers) {
    const colon = h.indexOf(':');
    if (colon <= 0) throw new CommandFailed('invalid', `--header ${JSON.stringify(h)}: expected 'Name: value'`);
    out[h.slice(0, colon).trim()] = h.slice(colon + 1).trim();
  }
  return out;
}
