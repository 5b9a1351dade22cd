import { parseArgs, type ParseArgsConfig } from 'node:util';
import { isSystemError, PortolanError } from '@portolan/errors';
import type { DesiredState } from '@portolan/desired-state';
import {
  FleetConfigError,
  loadFleetConfig,
  type ApplianceConfig,
  type LoadedFleetConfig,
} from '@portolan/fleet-config';
import {
  openDatabase,
  PgSnapshotHeads,
  readSnapshotDesired,
  type Database,
  type Kysely,
  type SnapshotHeads,
} from '@portolan/store';
import { PgAuditStore } from '../adapters/pg-audit-store.ts';
import type { CommandIo } from '../adapters/command-io.ts';
import type { SnapshotRecord } from '../core/history-report.ts';
import { parseOutputFormat, renderReport, type OutputFormat } from '../core/output-format.ts';
import { parseTimeSpec } from '../core/time-spec.ts';
import { AuditUsageError } from '../errors.ts';

/** Options every audit command takes. */
export const commonOptions = {
  config: { type: 'string', short: 'c' },
  output: { type: 'string', short: 'o' },
} as const satisfies ParseArgsConfig['options'];

/** A user-facing failure (unknown appliance or snapshot, unreadable config): printed, exit 1. */
export class CommandFailed extends PortolanError {
  readonly code = 'AUDIT_COMMAND_FAILED';
}

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

/** A `--since/--until/--time` value; null when not given. */
export function timeOption(io: CommandIo, name: string, value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const r = parseTimeSpec(value, io.now());
  if (!r.ok) throw new AuditUsageError(`--${name}: ${r.message}`);
  return r.at;
}

/** What every command works with: the fleet config, the database, the audit store, the snapshot decoder and the heads. */
export interface AuditContext {
  readonly fleet: LoadedFleetConfig;
  readonly db: Kysely<Database>;
  readonly store: PgAuditStore;
  /** Where rollback and resume append snapshots, under the same compare-and-set as the planner's commits. */
  readonly heads: SnapshotHeads;
  close(): Promise<void>;
}

/** Loads the fleet config (`--config`, $PORTOLAN_CONFIG, `.portolan/fleet.yaml`) and opens the store it names. */
export async function openAuditContext(io: CommandIo, configOption: unknown): Promise<AuditContext> {
  const file = typeof configOption === 'string' ? configOption : (io.env['PORTOLAN_CONFIG'] ?? '.portolan/fleet.yaml');
  let fleet: LoadedFleetConfig;
  try {
    fleet = await loadFleetConfig(file);
  } catch (e) {
    if (e instanceof FleetConfigError) throw new CommandFailed(e.message, { cause: e });
    if (isSystemError(e, 'ENOENT'))
      throw new CommandFailed(
        `fleet config ${file} not found (pass --config, or run \`portolan up\` which writes .portolan/fleet.yaml)`,
        { cause: e },
      );
    throw e;
  }
  const db = openDatabase(fleet.config.store.url, { max: 4 });
  return {
    fleet,
    db,
    store: new PgAuditStore(db),
    heads: new PgSnapshotHeads(db),
    close: () => db.destroy(),
  };
}

/** The fleet-config entry of an appliance; an unknown name is an error that lists the known ones. */
export function requireAppliance(ctx: AuditContext, name: string): ApplianceConfig {
  const a = ctx.fleet.config.appliances.find((x) => x.name === name);
  if (a === undefined)
    throw new CommandFailed(
      `unknown appliance "${name}" (the fleet config names: ${ctx.fleet.config.appliances.map((x) => x.name).join(', ')})`,
    );
  return a;
}

/** A snapshot by id (or `head:<appliance>` / `<appliance>@head`); unknown ids are an error naming them. */
export async function requireSnapshot(ctx: AuditContext, ref: string, appliance?: string): Promise<SnapshotRecord> {
  const head = /^head:(.+)$/.exec(ref)?.[1] ?? /^(.+)@head$/.exec(ref)?.[1];
  if (head !== undefined) {
    requireAppliance(ctx, head);
    const h = await ctx.store.head(head);
    if (h === null) throw new CommandFailed(`appliance "${head}" has no snapshot yet`);
    return h;
  }
  const s = await ctx.store.snapshot(ref);
  if (s === null)
    throw new CommandFailed(
      `unknown snapshot "${ref}"${/^\d+$/.test(ref) ? '' : ' (snapshots are numbered; `portolan history <appliance>` lists them)'}`,
    );
  if (appliance !== undefined && s.appliance !== appliance)
    throw new CommandFailed(`snapshot ${ref} belongs to appliance "${s.appliance}", not "${appliance}"`);
  return s;
}

/** Decodes a snapshot's desired state from its pieces (each verified against its id). */
export async function desiredOf(ctx: AuditContext, s: SnapshotRecord): Promise<DesiredState> {
  return readSnapshotDesired(ctx.db, s.rootHash);
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
