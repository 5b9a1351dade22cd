import { stringify as yamlStringify } from 'yaml';

/** How a command prints its report: a human table (default) or a machine format. */
export type OutputFormat = 'table' | 'json' | 'yaml';

/** Parses `-o/--output`; bad values are data (the command prints the message and exits 2). */
export function parseOutputFormat(
  value: string | undefined,
): { ok: true; format: OutputFormat } | { ok: false; message: string } {
  if (value === undefined || value === 'table' || value === 'wide') return { ok: true, format: 'table' };
  if (value === 'json' || value === 'yaml') return { ok: true, format: value };
  return { ok: false, message: `unknown output format "${value}" (use table, json or yaml)` };
}

/** Renders a report in the chosen format; `table` uses the command's own table renderer. */
export function renderReport<T>(format: OutputFormat, report: T, table: (report: T) => string): string {
  if (format === 'json') return `${JSON.stringify(report, jsonReplacer, 2)}\n`;
  if (format === 'yaml')
    return yamlStringify(JSON.parse(JSON.stringify(report, jsonReplacer)) as unknown, { lineWidth: 0 });
  return table(report);
}

/** Dates as ISO strings and bigints as strings, so JSON and YAML agree. */
function jsonReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  return value;
}
