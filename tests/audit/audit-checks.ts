// Reading the recorded audit scenario back in tests: a command's JSON report, the entries of a history, the web
// pool as the vTM emulator holds it, and a few rows of the database the pipeline wrote.
import assert from 'node:assert/strict';
import type { AuditCommandName, HistoryEntry, HistoryReport } from '@portolan/audit';
import type { VtmEmulator } from '@portolan/vtm-emulator';
import type { AuditScenario } from './audit-scenario.ts';

/** Runs a command with `-o json`, asserts it succeeded, and parses its report. */
export async function jsonOf<T>(s: AuditScenario, command: AuditCommandName, args: readonly string[]): Promise<T> {
  const r = await s.run(command, [...args, '-o', 'json']);
  assert.equal(r.code, 0, `${command} ${args.join(' ')} failed: ${r.stderr}${r.stdout}`);
  return JSON.parse(r.stdout) as T;
}

/** The snapshot entries of a history. */
export const snapshotsOf = (h: HistoryReport): Extract<HistoryEntry, { type: 'snapshot' }>[] =>
  h.entries.filter((e): e is Extract<HistoryEntry, { type: 'snapshot' }> => e.type === 'snapshot');

/** The apply entries of a history. */
export const appliesOf = (h: HistoryReport): Extract<HistoryEntry, { type: 'apply' }>[] =>
  h.entries.filter((e): e is Extract<HistoryEntry, { type: 'apply' }> => e.type === 'apply');

/** The epoch of the last apply of a history. */
export function appliesEpoch(h: HistoryReport): number {
  return appliesOf(h).at(-1)!.epoch;
}

/** Nodes of the web pool as a vTM (emulator) holds them. */
export function webNodes(emulator: VtmEmulator): string[] {
  const name = emulator.state.list('pools').find((n) => n.includes('shop_web_80'));
  const stored = name === undefined ? undefined : emulator.state.get('pools', name);
  const basic =
    stored?.kind === 'json' ? (stored.properties['basic'] as { nodes_table?: { node: string }[] }) : undefined;
  return (basic?.nodes_table ?? []).map((n) => n.node).sort();
}

/** When an apply finished, in ms since the epoch. */
export async function appliedAt(s: AuditScenario, applyId: string): Promise<number> {
  const row = await s.db
    .selectFrom('applies')
    .select('finished_at')
    .where('id', '=', applyId)
    .executeTakeFirstOrThrow();
  return new Date(row.finished_at).getTime();
}

/** How many snapshots the scenario's database holds. */
export async function snapshotCount(s: AuditScenario): Promise<number> {
  const row = await s.db
    .selectFrom('snapshots')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
