// The shell every `portolan` audit command shares: argv parsing, opening a context from the fleet-config file,
// printing reports and failures. The work itself is in api/, which the console calls too.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { isSystemError } from '@portolan/errors';
import { FleetConfigError, loadFleetConfig, type LoadedFleetConfig } from '@portolan/fleet-config';
import { progress, type CommandIo } from '../adapters/command-io.ts';
import { auditContextFor, type AuditContext, type ProgressFactory } from '../api/audit-context.ts';
import { parseOutputFormat, renderReport, type OutputFormat } from '../core/output-format.ts';
import { parseTimeSpec } from '../core/time-spec.ts';
import { AuditUsageError, CommandFailed } from '../errors.ts';

/** Options every audit command takes. */
export const commonOptions = {
  config: { type: 'string', short: 'c' },
  output: { type: 'string', short: 'o' },
} as const satisfies ParseArgsConfig['options'];

/** Parses argv with node's parseArgs; mistakes become AuditUsageError. */
export function parseCommand<O extends NonNullable<ParseArgsConfig['options']>>(
  args: readonly string[],
  options: O,
  positionals: { min: number; max: number; names: string },
) {
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (e) {
    // parseArgs reports unknown or malformed flags as TypeErrors with ERR_PARSE_ARGS_* codes.
    if (!(e instanceof TypeError)) throw e;
    throw new AuditUsageError(e.message, { cause: e });
  }
  if (parsed.positionals.length < positionals.min) throw new AuditUsageError(`missing ${positionals.names}`);
  if (parsed.positionals.length > positionals.max)
    throw new AuditUsageError(`unexpected argument "${parsed.positionals[positionals.max]}"`);
  return parsed;
}

/** The output format from `-o`. */
export function outputFormat(value: unknown): OutputFormat {
  const r = parseOutputFormat(typeof value === 'string' ? value : undefined);
  if (!r.ok) throw new AuditUsageError(r.message);
  return r.format;
}

/** A `--since/--until/--time` value; null when not given. A bad one is a usage error (the usage is printed). */
export function timeOption(io: CommandIo, name: string, value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const r = parseTimeSpec(value, io.now());
  if (!r.ok) throw new AuditUsageError(`--${name}: ${r.message}`);
  return r.at;
}

/** `--wait SECONDS` in milliseconds (`fallback` when not given). */
export function waitOption(value: unknown, fallbackMs: number): number {
  const waitMs = typeof value === 'string' ? Number(value) * 1000 : fallbackMs;
  if (!Number.isFinite(waitMs) || waitMs < 0) throw new AuditUsageError(`--wait ${String(value)}: seconds expected`);
  return waitMs;
}

/** The fleet-config file a command reads: `--config`, else $PORTOLAN_CONFIG, else `.portolan/fleet.yaml`. */
export function configFile(io: CommandIo, configOption: unknown): string {
  return typeof configOption === 'string' ? configOption : (io.env['PORTOLAN_CONFIG'] ?? '.portolan/fleet.yaml');
}

/** Loads the fleet config; a missing or invalid file is a CommandFailed naming it. */
export async function loadConfigFile(file: string): Promise<LoadedFleetConfig> {
  try {
    return await loadFleetConfig(file);
  } catch (e) {
    if (e instanceof FleetConfigError) throw new CommandFailed('invalid', e.message, { cause: e });
    if (isSystemError(e, 'ENOENT'))
      throw new CommandFailed(
        'not-found',
        `fleet config ${file} not found (pass --config, or run \`portolan up\` which writes .portolan/fleet.yaml)`,
        { cause: e },
      );
    throw e;
  }
}

/** Loads the fleet config and opens the store it names, reading relative times against the terminal's clock. */
export async function openAuditContext(io: CommandIo, configOption: unknown): Promise<AuditContext> {
  const fleet = await loadConfigFile(configFile(io, configOption));
  return auditContextFor(fleet, { now: () => io.now() });
}

/** Runs a command body with an opened context, printing CommandFailed as `portolan <name>: message` (exit 1). */
export async function withContext(
  io: CommandIo,
  name: string,
  configOption: unknown,
  body: (ctx: AuditContext) => Promise<number>,
): Promise<number> {
  let ctx: AuditContext | null = null;
  try {
    ctx = await openAuditContext(io, configOption);
    return await body(ctx);
  } catch (e) {
    if (e instanceof CommandFailed) {
      io.stderr.write(`portolan ${name}: ${e.message}\n`);
      return 1;
    }
    throw e;
  } finally {
    await ctx?.close();
  }
}

/** Prints a report in the chosen format. */
export function printReport<T>(io: CommandIo, format: OutputFormat, report: T, table: (r: T) => string): void {
  io.stdout.write(renderReport(format, report, table));
}

/** A progress bar on the command's terminal, for the api functions that take one. */
export function terminalProgress(io: CommandIo): ProgressFactory {
  return (label) => progress(io, label);
}
