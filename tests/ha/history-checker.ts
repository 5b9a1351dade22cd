// The history checker of the chaos suite. It reads what was recorded (the snapshot chain, every apply with its
// epoch and times, every epoch grant) and what the appliance holds, and returns each rule broken with the shortest
// history that shows it: the rows involved, nothing else.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { DriverRegistry, PgSnapshotSource } from '@portolan/applier';
import { loadFleetConfig } from '@portolan/fleet-config';
import type { Database, Kysely } from '@portolan/store';
import type { VtmClient } from '../e2e/appliance-clients.ts';
import { readApplianceView, type ApplianceView } from './appliance-view.ts';

/** One broken rule and the records that show it. */
export interface Violation {
  readonly rule:
    | 'acknowledged-change-missing'
    | 'head-not-applied'
    | 'stale-epoch-write'
    | 'appliance-epoch-regressed'
    | 'untraced-write'
    | 'two-writers'
    | 'snapshot-chain-not-linear'
    | 'appliance-differs-from-head'
    | 'replay-differs';
  readonly history: readonly string[];
}

/** An apply as the checker reads it. */
export interface ApplyRow {
  readonly id: string;
  readonly snapshot_id: string;
  readonly epoch: string;
  readonly leader_id: string;
  readonly status: string;
  readonly started_at: Date;
  readonly finished_at: Date;
}

/** Statuses of applies that wrote to the appliance under their epoch. */
const WROTE = ['succeeded', 'partial'];

/** One write as the appliance's audit log holds it (the vTM emulator's `--audit-log`). */
export interface ApplianceWrite {
  readonly seq: number;
  readonly at: string;
  readonly method: string;
  readonly type: string;
  readonly name: string;
  readonly status: number;
  readonly epoch: number | null;
  readonly snapshot: string | null;
}

/** The audit log's writes, in the order the appliance answered them. */
export function readApplianceWrites(auditLog: string): ApplianceWrite[] {
  if (!existsSync(auditLog)) return [];
  const lines = readFileSync(auditLog, 'utf8').split('\n');
  return lines.filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as ApplianceWrite);
}

const writeLine = (w: ApplianceWrite): string =>
  `appliance write ${w.seq} at ${w.at}: ${w.method} ${w.type}/${w.name} → ${w.status}, ` +
  `epoch ${w.epoch ?? '(none)'}, snapshot ${w.snapshot ?? '(none)'}`;

/**
 * What reached the appliance, against the records: once a write of epoch E landed, no write of an older epoch may
 * land after it (a superseded leader wrote: the fence failed); and every write the pipeline made names an epoch
 * that was granted and a snapshot of this appliance. Writes before `since` (the launcher's own setup) are skipped.
 */
export function checkApplianceWrites(
  writes: readonly ApplianceWrite[],
  grants: readonly GrantRow[],
  snapshots: readonly SnapshotRow[],
  since: Date,
): Violation[] {
  const out: Violation[] = [];
  const granted = new Set(grants.map((g) => Number(g.epoch)));
  const known = new Set(snapshots.map((s) => String(s.id)));
  let newest: ApplianceWrite | null = null;
  for (const w of writes.filter((x) => Date.parse(x.at) >= since.getTime() && x.status < 300)) {
    if (w.epoch === null || w.snapshot === null || !granted.has(w.epoch) || !known.has(w.snapshot)) {
      out.push({ rule: 'untraced-write', history: [writeLine(w)] });
      continue;
    }
    if (newest !== null && w.epoch < newest.epoch!) {
      const grant = grants.find((g) => Number(g.epoch) === newest!.epoch);
      const granted =
        grant === undefined
          ? []
          : [`epoch ${grant.epoch} granted to ${grant.holder} at ${grant.acquired_at.toISOString()}`];
      out.push({ rule: 'appliance-epoch-regressed', history: [...granted, writeLine(newest), writeLine(w)] });
    }
    if (newest === null || w.epoch > newest.epoch!) newest = w;
  }
  return out;
}

/**
 * The appliance's final state against the acknowledged changes: every one must show (latest per object). A missing
 * change is shown with the last writes of its pool that reached the appliance (`writes`: its audit log), which say
 * under which epoch and from which snapshot the pool got what it holds.
 */
export function checkFinalState(
  expected: ApplianceView,
  observed: ApplianceView,
  writes: readonly ApplianceWrite[] = [],
): Violation[] {
  const out: Violation[] = [];
  for (const [svc, nodes] of expected.pools) {
    const held = observed.pools.get(svc) ?? [];
    if (JSON.stringify(held) !== JSON.stringify(nodes))
      out.push({
        rule: 'acknowledged-change-missing',
        history: [
          `last acknowledged: ${svc} → ${nodes.join(' ')}`,
          `appliance holds: ${held.join(' ') || '(no pool)'}`,
          ...writes
            .filter((w) => w.type === 'pools' && w.name.endsWith(svc))
            .slice(-4)
            .map(writeLine),
        ],
      });
  }
  if (expected.extraRouted !== observed.extraRouted)
    out.push({
      rule: 'acknowledged-change-missing',
      history: [`extra Ingress last acknowledged as ${expected.extraRouted ? 'added' : 'removed'}`],
    });
  return out;
}

/** An epoch grant as the checker reads it. */
export interface GrantRow {
  readonly epoch: string;
  readonly holder: string;
  readonly acquired_at: Date;
}

/** A snapshot's place in its chain. */
export interface SnapshotRow {
  readonly id: string;
  readonly parent_id: string | null;
}

/** The recorded history of one appliance and its group: applies, epoch grants, snapshots and the head. */
interface RecordedHistory {
  readonly applies: ApplyRow[];
  readonly grants: GrantRow[];
  readonly snapshots: SnapshotRow[];
  readonly head: string | null;
}

async function readHistory(db: Kysely<Database>, appliance: string, group: string): Promise<RecordedHistory> {
  const applies = (await db
    .selectFrom('applies')
    .select(['id', 'snapshot_id', 'epoch', 'leader_id', 'status', 'started_at', 'finished_at'])
    .where('appliance', '=', appliance)
    .orderBy('id')
    .execute()) as unknown as ApplyRow[];
  const grants = (await db
    .selectFrom('leader_epoch_history')
    .select(['epoch', 'holder', 'acquired_at'])
    .where('group_name', '=', group)
    .orderBy('id')
    .execute()) as unknown as GrantRow[];
  const snapshots = (await db
    .selectFrom('snapshots')
    .select(['id', 'parent_id'])
    .where('appliance', '=', appliance)
    .orderBy('id')
    .execute()) as unknown as SnapshotRow[];
  const head = await db
    .selectFrom('snapshot_heads')
    .select('snapshot_id')
    .where('appliance', '=', appliance)
    .executeTakeFirst();
  return { applies, grants, snapshots, head: head === undefined ? null : String(head.snapshot_id) };
}

/**
 * The recorded history of one appliance and its group, rule by rule; with `audit`, also what reached the appliance
 * (its audit log from `audit.since` on, by default from the first apply; see checkApplianceWrites).
 */
export async function checkRecords(
  db: Kysely<Database>,
  appliance: string,
  group: string,
  audit?: { readonly log: string; readonly since?: Date },
): Promise<Violation[]> {
  const h = await readHistory(db, appliance, group);
  // By default the audit is read from the first apply on: what came before is the launcher's own setup.
  const firstApply = h.applies.reduce<Date | null>((t, a) => (t === null || a.started_at < t ? a.started_at : t), null);
  const since = audit?.since ?? firstApply ?? new Date();
  return [
    ...staleEpochWrites(h.applies, h.grants),
    ...twoWriters(h.applies),
    ...chainBreaks(h.snapshots),
    ...headNotApplied(h.head, h.applies),
    ...(audit === undefined ? [] : checkApplianceWrites(readApplianceWrites(audit.log), h.grants, h.snapshots, since)),
  ];
}

const line = (a: ApplyRow): string =>
  `apply ${a.id}: snapshot ${a.snapshot_id}, epoch ${a.epoch} by ${a.leader_id}, ${a.status}, ` +
  `${a.started_at.toISOString()} → ${a.finished_at.toISOString()}`;

/** Applies that wrote although a larger epoch had been granted before they began. */
export function staleEpochWrites(applies: readonly ApplyRow[], grants: readonly GrantRow[]): Violation[] {
  return applies
    .filter((a) => WROTE.includes(a.status))
    .flatMap((a) => {
      const newer = grants.find((g) => Number(g.epoch) > Number(a.epoch) && g.acquired_at < a.started_at);
      if (newer === undefined) return [];
      const granted = `epoch ${newer.epoch} granted to ${newer.holder} at ${newer.acquired_at.toISOString()}`;
      return [{ rule: 'stale-epoch-write' as const, history: [granted, line(a)] }];
    });
}

/** Pairs of applies of different epochs that wrote at overlapping times: two leaders at once. */
export function twoWriters(applies: readonly ApplyRow[]): Violation[] {
  const wrote = applies.filter((a) => WROTE.includes(a.status));
  const out: Violation[] = [];
  for (let i = 0; i < wrote.length; i++)
    for (let j = i + 1; j < wrote.length; j++) {
      const [a, b] = [wrote[i]!, wrote[j]!];
      if (a.epoch !== b.epoch && a.started_at < b.finished_at && b.started_at < a.finished_at)
        out.push({ rule: 'two-writers', history: [line(a), line(b)] });
    }
  return out;
}

/** Snapshots (in id order) whose parent is not the snapshot before them: the chain forked or skipped. */
export function chainBreaks(snapshots: readonly SnapshotRow[]): Violation[] {
  return snapshots.flatMap((s, i) => {
    const previous = i === 0 ? null : snapshots[i - 1]!.id;
    if (String(s.parent_id ?? null) === String(previous)) return [];
    const parent = s.parent_id ?? 'none';
    const history = [`snapshot ${s.id} has parent ${parent}, the snapshot before it is ${previous ?? 'none'}`];
    return [{ rule: 'snapshot-chain-not-linear' as const, history }];
  });
}

/** The head snapshot must have an apply that succeeded (or found nothing to do). */
export function headNotApplied(head: string | null, applies: readonly ApplyRow[]): Violation[] {
  const applied = applies.filter((a) => String(a.snapshot_id) === head);
  if (head !== null && applied.some((a) => ['succeeded', 'noop'].includes(a.status))) return [];
  return [{ rule: 'head-not-applied', history: [`head snapshot ${head ?? '(none)'}`, ...applied.map(line)] }];
}

/**
 * The appliance read back, against the head snapshot rendered by the appliance's driver: the operations an applier
 * would still send. None, when the appliance holds exactly what the latest plan says.
 */
export async function checkApplianceAgainstHead(
  fleetConfig: string,
  appliance: string,
  db: Kysely<Database>,
): Promise<Violation[]> {
  const loaded = await loadFleetConfig(fleetConfig);
  const config = loaded.config.appliances.find((a) => a.name === appliance)!;
  const source = new PgSnapshotSource(db);
  const head = await source.head(appliance);
  if (head === null) return [{ rule: 'head-not-applied', history: ['no snapshot at all'] }];
  const snapshot = await source.get(head.id);
  const driver = await new DriverRegistry().create(config, loaded.baseDir);
  try {
    const observed = await driver.readBack(AbortSignal.timeout(10_000));
    const pending = driver.diff(driver.render(snapshot.desired, observed), observed);
    if (pending.length === 0) return [];
    const lines = pending.slice(0, 10).map((op) => JSON.stringify(op).slice(0, 200));
    return [{ rule: 'appliance-differs-from-head', history: [`head snapshot ${head.id}`, ...lines] }];
  } finally {
    await driver.close();
  }
}

const run = promisify(execFile);
const cli = path.resolve(import.meta.dirname, '..', '..', 'packages', 'cli', 'bin', 'portolan.js');

/** `portolan replay --verify`: every snapshot rebuilt from the archive must have its stored hash. */
export async function checkReplay(fleetConfig: string): Promise<Violation[]> {
  try {
    await run(process.execPath, [cli, 'replay', '--verify', '--config', fleetConfig], { timeout: 120_000 });
    return [];
  } catch (e) {
    // A non-zero exit is the finding; anything else (the CLI could not run) is not the history's fault.
    const { code, stdout = '', stderr = '' } = e as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof code !== 'number') throw e;
    return [{ rule: 'replay-differs', history: `${stdout}${stderr}`.trim().split('\n').slice(-20) }];
  }
}

/** One line of what the history holds: snapshots, applies by status, epoch grants. */
export async function historySummary(db: Kysely<Database>, appliance: string): Promise<string> {
  const count = async (table: 'snapshots' | 'applies'): Promise<number> =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .where('appliance', '=', appliance)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const statuses = await db
    .selectFrom('applies')
    .select(['status', (eb) => eb.fn.countAll().as('n')])
    .where('appliance', '=', appliance)
    .groupBy('status')
    .orderBy('status')
    .execute();
  const grants = await db.selectFrom('leader_epoch_history').select(['epoch', 'holder']).orderBy('id').execute();
  return (
    `${await count('snapshots')} snapshots, ${await count('applies')} applies ` +
    `(${statuses.map((r) => `${r.n} ${r.status}`).join(', ')}), epoch grants ${grants.map((g) => `${g.epoch}:${g.holder}`).join(' ')}`
  );
}

/** The last applies (with their triggers) and the head: printed beside a failed round's violations. */
export async function recentHistory(db: Kysely<Database>, appliance: string, n = 10): Promise<string> {
  const applies = await db
    .selectFrom('applies')
    .select(['id', 'snapshot_id', 'epoch', 'leader_id', 'trigger', 'status', 'started_at'])
    .where('appliance', '=', appliance)
    .orderBy('id', 'desc')
    .limit(n)
    .execute();
  const head = await db
    .selectFrom('snapshot_heads')
    .select('snapshot_id')
    .where('appliance', '=', appliance)
    .executeTakeFirst();
  const lines = applies
    .reverse()
    .map(
      (a) =>
        `  apply ${a.id}: snapshot ${a.snapshot_id}, epoch ${a.epoch} by ${a.leader_id}, ${a.trigger}, ${a.status}, ` +
        `${a.started_at.toISOString()}`,
    );
  return [`head snapshot ${head?.snapshot_id ?? '(none)'}; the last applies:`, ...lines].join('\n');
}

/** What checking a pipeline's history reads: its vTM, the vTM's audit log and its fleet config. */
export interface CheckedPipeline {
  readonly vtm: VtmClient;
  readonly fleetConfig: string;
  readonly launched: { readonly layout: { readonly vtmAuditLog: string } };
}

/**
 * Every rule over one appliance of a pipeline: the final state against the acknowledged changes (`expected`, shown
 * with the pool's last writes), the records with the appliance's audit log, and the appliance against its head.
 */
export async function checkHistory(
  pipeline: CheckedPipeline,
  db: Kysely<Database>,
  appliance: string,
  expected: ApplianceView,
): Promise<Violation[]> {
  const log = pipeline.launched.layout.vtmAuditLog;
  return [
    ...checkFinalState(expected, await readApplianceView(pipeline.vtm), readApplianceWrites(log)),
    ...(await checkRecords(db, appliance, appliance, { log })),
    ...(await checkApplianceAgainstHead(pipeline.fleetConfig, appliance, db)),
  ];
}

/** The violations as the report a failed run prints. */
export function formatViolations(violations: readonly Violation[]): string {
  return violations.map((v) => `${v.rule}:\n${v.history.map((h) => `    ${h}`).join('\n')}`).join('\n');
}
