import type { DesiredState } from '@portolan/desired-state';
import type { ApplianceConfig, LoadedFleetConfig } from '@portolan/fleet-config';
import { openDatabase, readSnapshotDesired, type Database, type Kysely } from '@portolan/store';
import type { Progress } from '../adapters/command-io.ts';
import { PgAuditStore } from '../adapters/pg-audit-store.ts';
import type { SnapshotRecord } from '../core/history-report.ts';
import { parseTimeSpec } from '../core/time-spec.ts';
import { CommandFailed } from '../errors.ts';

/**
 * What every audit function works with: the fleet config, one database pool and the audit store over it, and the
 * clock that relative times (`-15m`) are read against. A CLI command opens one per run; a server holds one.
 */
export interface AuditContext {
  readonly fleet: LoadedFleetConfig;
  readonly db: Kysely<Database>;
  readonly store: PgAuditStore;
  now(): Date;
  /** Closes the pool (a context from `auditContextFor`; one made around a borrowed db leaves it open). */
  close(): Promise<void>;
}

/** How an AuditContext is made: the pool size, the clock, or an existing database handle to share. */
export interface AuditContextOptions {
  /** Connections in the pool (default 4). */
  readonly maxConnections?: number;
  readonly now?: () => Date;
  /** Use this handle instead of opening a pool on `fleet.config.store.url`; `close()` then leaves it open. */
  readonly db?: Kysely<Database>;
}

/** An AuditContext over the store the fleet config names: one pool for as long as the caller holds it. */
export function auditContextFor(fleet: LoadedFleetConfig, options: AuditContextOptions = {}): AuditContext {
  const owned = options.db === undefined;
  const db = options.db ?? openDatabase(fleet.config.store.url, { max: options.maxConnections ?? 4 });
  return {
    fleet,
    db,
    store: new PgAuditStore(db),
    now: options.now ?? (() => new Date()),
    close: async () => {
      if (owned) await db.destroy();
    },
  };
}

/** Makes a progress bar for a label; functions that walk many snapshots report through it when given one. */
export type ProgressFactory = (label: string) => Progress;

/** No progress shown (the default: a server has no terminal). */
export const noProgress: ProgressFactory = () => ({ tick: () => {}, done: () => {} });

/** The fleet-config entry of an appliance; an unknown name is an error that lists the known ones. */
export function requireAppliance(ctx: AuditContext, name: string): ApplianceConfig {
  const a = ctx.fleet.config.appliances.find((x) => x.name === name);
  if (a === undefined)
    throw new CommandFailed(
      'not-found',
      `unknown appliance "${name}" (the fleet config names: ${ctx.fleet.config.appliances.map((x) => x.name).join(', ')})`,
    );
  return a;
}

/** A snapshot by id (or `head:<appliance>` / `<appliance>@head`); unknown ids are an error naming them. */
export async function requireSnapshot(ctx: AuditContext, ref: string, appliance?: string): Promise<SnapshotRecord> {
  const head = /^head:(.+)$/.exec(ref)?.[1] ?? /^(.+)@head$/.exec(ref)?.[1];
  if (head !== undefined) {
    requireAppliance(ctx, head);
    return requireHead(ctx, head);
  }
  const s = await ctx.store.snapshot(ref);
  if (s === null)
    throw new CommandFailed(
      'not-found',
      `unknown snapshot "${ref}"${/^\d+$/.test(ref) ? '' : ' (snapshots are numbered; `portolan history <appliance>` lists them)'}`,
    );
  if (appliance !== undefined && s.appliance !== appliance)
    throw new CommandFailed('invalid', `snapshot ${ref} belongs to appliance "${s.appliance}", not "${appliance}"`);
  return s;
}

/** The appliance's head snapshot; an appliance not yet planned is not-found. */
export async function requireHead(ctx: AuditContext, appliance: string): Promise<SnapshotRecord> {
  const h = await ctx.store.head(appliance);
  if (h === null) throw new CommandFailed('not-found', `appliance "${appliance}" has no snapshot yet`);
  return h;
}

/** Decodes a snapshot's desired state from its pieces (each verified against its id). */
export async function desiredOf(ctx: AuditContext, s: SnapshotRecord): Promise<DesiredState> {
  return readSnapshotDesired(ctx.db, s.rootHash);
}

/** A time parameter: a Date as is, a time spec (`-15m`, `2026-11-22T14:02Z`, `now`) read against the context's clock. */
export function timeParam(ctx: AuditContext, name: string, value: Date | string | null | undefined): Date | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value;
  const r = parseTimeSpec(value, ctx.now());
  if (!r.ok) throw new CommandFailed('invalid', `${name}: ${r.message}`);
  return r.at;
}
