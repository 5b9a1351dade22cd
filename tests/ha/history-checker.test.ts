import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expectedView } from './appliance-view.ts';
import { addressesOf, stepOfNode } from './chaos-workload.ts';
import {
  chainBreaks,
  checkApplianceWrites,
  checkFinalState,
  headNotApplied,
  staleEpochWrites,
  twoWriters,
  type ApplianceWrite,
  type ApplyRow,
  type GrantRow,
} from './history-checker.ts';

const t = (s: number): Date => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
const apply = (id: number, epoch: number, from: number, to: number, status = 'succeeded'): ApplyRow => ({
  id: String(id),
  snapshot_id: String(id),
  epoch: String(epoch),
  leader_id: `leader-${epoch}`,
  status,
  started_at: t(from),
  finished_at: t(to),
});
const grant = (epoch: number, at: number): GrantRow => ({
  epoch: String(epoch),
  holder: `leader-${epoch}`,
  acquired_at: t(at),
});
const rules = (v: readonly { rule: string }[]): string[] => v.map((x) => x.rule);

test('a write begun under an epoch already superseded is found; one begun before the new grant is not', () => {
  const grants = [grant(1, 0), grant(2, 10)];
  const cases: { name: string; applies: ApplyRow[]; want: string[] }[] = [
    { name: 'each term writes in its own time', applies: [apply(1, 1, 1, 2), apply(2, 2, 11, 12)], want: [] },
    {
      name: 'the old leader skipped its epoch check',
      applies: [apply(1, 2, 11, 12), apply(2, 1, 13, 14)],
      want: ['stale-epoch-write'],
    },
    { name: 'a fenced record is no write', applies: [apply(1, 1, 13, 14, 'fenced')], want: [] },
  ];
  for (const c of cases) assert.deepEqual(rules(staleEpochWrites(c.applies, grants)), c.want, c.name);
});

test('two epochs writing at overlapping times are two leaders; one after the other are not', () => {
  assert.deepEqual(rules(twoWriters([apply(1, 1, 1, 5), apply(2, 2, 4, 6)])), ['two-writers']);
  assert.deepEqual(rules(twoWriters([apply(1, 1, 1, 3), apply(2, 2, 4, 6)])), []);
  assert.deepEqual(rules(twoWriters([apply(1, 1, 1, 5), apply(2, 1, 4, 6)])), [], 'one epoch, one leader');
});

test('the snapshot chain is linear and its head applied', () => {
  assert.deepEqual(
    rules(
      chainBreaks([
        { id: '1', parent_id: null },
        { id: '2', parent_id: '1' },
      ]),
    ),
    [],
  );
  assert.deepEqual(
    rules(
      chainBreaks([
        { id: '1', parent_id: null },
        { id: '2', parent_id: null },
      ]),
    ),
    ['snapshot-chain-not-linear'],
  );
  assert.deepEqual(rules(headNotApplied('2', [apply(2, 1, 1, 2)])), []);
  assert.deepEqual(rules(headNotApplied('2', [apply(2, 1, 1, 2, 'failed')])), ['head-not-applied']);
});

test('the appliance must hold the last acknowledged change of every object', () => {
  const changes = [
    { step: 1, target: 'web-0', addresses: ['10.2.1.1'], ackedAt: 1 },
    { step: 2, target: 'web-0', addresses: ['10.2.2.1'], ackedAt: 2 },
    { step: 3, target: 'extra', addresses: ['extra.chaos.example'], ackedAt: 3 },
  ];
  const expected = expectedView(changes);
  assert.deepEqual(checkFinalState(expected, expected), []);
  const stale = { pools: new Map([['web-0', ['10.2.1.1:8080']]]), extraRouted: true };
  assert.deepEqual(rules(checkFinalState(expected, stale)), ['acknowledged-change-missing']);
  assert.deepEqual(rules(checkFinalState(expected, { ...expected, extraRouted: false })), [
    'acknowledged-change-missing',
  ]);
});

test('every change has addresses of its own, and a node names the change it came from', () => {
  for (const step of [1, 255, 256, 4000]) assert.equal(stepOfNode(`${addressesOf(step)[0]}:8080`), step);
  assert.equal(stepOfNode('192.168.0.1:8080'), null);
});

test('on the appliance, a write of an older epoch after a newer one is found, and so is a write that names nothing', () => {
  const write = (seq: number, at: number, epoch: number | null, snapshot: string | null = '1'): ApplianceWrite => ({
    seq,
    at: t(at).toISOString(),
    method: 'PUT',
    type: 'pools',
    name: `p${seq}`,
    status: 200,
    epoch,
    snapshot,
  });
  const grants = [grant(1, 0), grant(2, 10)];
  const snapshots = [
    { id: '1', parent_id: null },
    { id: '2', parent_id: '1' },
  ];
  const check = (writes: ApplianceWrite[], since = t(0)): string[] =>
    rules(checkApplianceWrites(writes, grants, snapshots, since));
  assert.deepEqual(check([write(1, 1, 1), write(2, 2, 1), write(3, 11, 2, '2'), write(4, 12, 2, '2')]), []);
  assert.deepEqual(
    check([write(1, 11, 2), write(2, 12, 1)]),
    ['appliance-epoch-regressed'],
    'the old leader wrote last',
  );
  const regressed = checkApplianceWrites([write(1, 11, 2), write(2, 12, 1)], grants, snapshots, t(0))[0]!;
  assert.equal(regressed.history.length, 3, 'the grant, the newer write and the older one: nothing else');
  assert.deepEqual(check([write(1, 1, null, null)]), ['untraced-write'], 'a write without its stamp');
  assert.deepEqual(check([write(1, 1, 3)]), ['untraced-write'], 'an epoch never granted');
  assert.deepEqual(check([write(1, 1, 1, '9')]), ['untraced-write'], 'a snapshot this appliance never had');
  assert.deepEqual(
    check([write(1, 1, null, null), write(2, 11, 2)], t(5)),
    [],
    'setup writes before `since` are skipped',
  );
  assert.deepEqual(check([{ ...write(1, 12, 1), status: 404 }, write(2, 11, 2)]), [], 'refused writes changed nothing');
});
