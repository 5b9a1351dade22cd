// The fault loop's history checker: what every snapshot may show of each Service, given the changes the test
// made and which of them kubectl acknowledged.
import assert from 'node:assert/strict';
import { PgSnapshotSource } from '@portolan/applier';
import type { DesiredState } from '@portolan/desired-state';
import type { Pipeline } from './pipeline-harness.ts';

/** One change of one Service's endpoints, in the order the test issued them (index 0..n over all Services). */
export interface Change {
  readonly index: number;
  readonly service: string;
  readonly members: readonly string[];
  /** acked: kubectl returned success; failed: kubectl failed (the change may or may not have happened); pending: in flight. */
  state: 'pending' | 'acked' | 'failed';
}

/** The changes the loop made: per Service in issue order, and the namespace its Services live in. */
export interface FaultLedger {
  readonly namespace: string;
  readonly services: readonly string[];
  readonly byService: ReadonlyMap<string, readonly Change[]>;
  readonly seed: number;
}

/** A member set's identity, independent of order. */
export const key = (members: readonly string[]): string => [...members].sort().join(',');

export function membersByService(desired: DesiredState, ns: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const pl of desired.pools) {
    for (const ref of pl.services) {
      if (ref.namespace === ns) out.set(ref.name, key(pl.members.map((m) => m.address)));
    }
  }
  return out;
}

/**
 * The history: in snapshot order from the baseline on, each Service's members are those of one of its changes, never
 * an earlier one than a previous snapshot showed, and the last snapshot shows its last acknowledged change. A failure
 * names the first snapshot that breaks this, with the change index, snapshot ids and members involved.
 */
export async function checkHistory(
  pipeline: Pipeline,
  baseline: string,
  lastAcked: ReadonlyMap<string, Change>,
  ledger: FaultLedger,
): Promise<void> {
  const { services, byService, seed: SEED } = ledger;
  const edge = pipeline.appliance('edge');
  const rows = await pipeline.db
    .selectFrom('snapshots')
    .select(['id', 'last_event_seq'])
    .where('appliance', '=', edge)
    .where('id', '>=', baseline)
    .orderBy('id')
    .execute();
  const source = new PgSnapshotSource(pipeline.db);
  const position = new Map<string, { change: Change; snapshot: string }>(
    services.map((s) => [s, { change: byService.get(s)![0]!, snapshot: String(baseline) }]),
  );
  const violations: string[] = [];
  for (const row of rows) {
    const members = membersByService((await source.get(String(row.id))).desired, ledger.namespace);
    for (const s of services) {
      const at = position.get(s)!;
      const got = members.get(s) ?? '(no pool)';
      if (got === key(at.change.members)) continue;
      const list = byService.get(s)!;
      const next = list.find((c) => c.index > at.change.index && key(c.members) === got);
      if (next !== undefined) {
        position.set(s, { change: next, snapshot: String(row.id) });
        continue;
      }
      const earlier = list.filter((c) => c.index < at.change.index && key(c.members) === got).at(-1);
      violations.push(
        earlier === undefined
          ? `${s}: snapshot ${row.id} (seq ${row.last_event_seq}) has [${got}], which no change asked for; snapshot ${at.snapshot} had change #${at.change.index} [${key(at.change.members)}]`
          : `${s}: snapshot ${row.id} (seq ${row.last_event_seq}) went back to change #${earlier.index} [${got}] after snapshot ${at.snapshot} showed change #${at.change.index} [${key(at.change.members)}]`,
      );
      break;
    }
    if (violations.length > 0) break;
  }
  for (const s of services) {
    const at = position.get(s)!;
    if (violations.length === 0 && key(at.change.members) !== key(lastAcked.get(s)!.members))
      violations.push(
        `${s}: the last snapshot ${at.snapshot} shows change #${at.change.index} [${key(at.change.members)}], not the last acknowledged #${lastAcked.get(s)!.index} [${key(lastAcked.get(s)!.members)}]`,
      );
  }

  process.stdout.write(`history: ${rows.length} snapshots of ${edge} checked from snapshot ${String(baseline)}\n`);
  assert.deepEqual(violations, [], `history (SEED=${SEED})`);
}
