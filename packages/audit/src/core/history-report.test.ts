import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ObjectChange } from './archived-change.ts';
import { isRelevant, referencedObjects } from './desired-refs.ts';
import { buildHistory, snapshotCause, type SnapshotRecord } from './history-report.ts';
import { formatHistoryTable } from './history-table.ts';
import { shop } from '../testing/desired-fixture.ts';

const change = (
  kind: ObjectChange['kind'],
  name: string,
  seq: number,
  service: string | null = null,
): ObjectChange => ({
  type: 'event',
  seq,
  at: '2026-11-22T14:00:00.000Z',
  traceId: null,
  cluster: 'c1',
  kind,
  namespace: 'shop',
  name,
  uid: `u-${name}`,
  resourceVersion: String(100 + seq),
  event: 'MODIFIED',
  service,
});
const snap = (id: string, at: string, extra: Partial<SnapshotRecord> = {}): SnapshotRecord => ({
  id,
  appliance: 'edge',
  parentId: null,
  contentHash: `h${id}`,
  rootHash: `h${id}`,
  lastEventSeq: Number(id) * 10,
  held: false,
  holdReason: null,
  origin: 'plan',
  reason: null,
  createdAt: new Date(at),
  traceId: null,
  plannerVersion: '0.1.0',
  fleetConfigHash: 'f',
  ...extra,
});

test("a snapshot's cause keeps the changes that touch what its plans name; EndpointSlices count through their Service", () => {
  const refs = referencedObjects(shop());
  const changes = [
    change('EndpointSlice', 'web-1', 11, 'web'),
    change('EndpointSlice', 'other-1', 12, 'other'),
    change('Ingress', 'web', 13),
    change('IngressClass', 'portolan', 14),
  ];
  const cause = snapshotCause(10, 20, changes, (c) => isRelevant(c, refs), 9);
  assert.deepEqual(
    cause.objects.map((o) => `${o.object}@${o.resourceVersion}`),
    ['c1/EndpointSlice/shop/web-1@111', 'c1/Ingress/shop/web@113'],
  );
  assert.deepEqual([cause.fromSeq, cause.toSeq, cause.events, cause.filtered], [10, 20, 9, true]);
  const unrelated = snapshotCause(10, 20, [change('IngressClass', 'portolan', 14)], (c) => isRelevant(c, refs), 1);
  assert.deepEqual([unrelated.filtered, unrelated.objects.length], [false, 1], 'nothing named: every change is shown');
});

test('buildHistory orders by time; at equal times snapshot, then apply, then drift', () => {
  const t = '2026-11-22T14:00:00.000Z';
  const h = buildHistory({
    appliance: 'edge',
    since: null,
    until: null,
    snapshots: [
      { record: snap('2', '2026-11-22T14:00:05Z'), cause: snapshotCause(10, 20, [], () => true, 0) },
      { record: snap('1', t), cause: snapshotCause(0, 10, [], () => true, 0) },
    ],
    applies: [
      {
        id: '1',
        snapshotId: '1',
        epoch: 3,
        leaderId: 'r1',
        trigger: 'snapshot',
        status: 'succeeded',
        operations: 2,
        failed: 0,
        reason: null,
        startedAt: new Date(t),
        finishedAt: new Date(t),
        traceId: null,
        observedAfterHash: 'x',
      },
    ],
    drift: [{ id: '1', snapshotId: '1', objects: ['pools/p'], action: 'reported', observedAt: new Date(t) }],
  });
  assert.deepEqual(
    h.entries.map((e) => `${e.type}${e.id}`),
    ['snapshot1', 'apply1', 'drift1', 'snapshot2'],
  );
  const table = formatHistoryTable(h);
  assert.match(table.split('\n')[0]!, /^TIME\s+WHAT\s+ID\s+SNAPSHOT\s+EPOCH\s+RESULT\s+CAUSE \/ DETAIL\s+TRACE$/);
  assert.match(table, /apply\s+1\s+1\s+3\s+succeeded\s+snapshot, 2 op\(s\) by r1/);
  assert.equal(
    formatHistoryTable({ appliance: 'edge', since: t, until: null, entries: [] }),
    'No snapshots or applies for edge in that window.\n',
  );
});

test('rollback snapshots show the operator and the reason instead of events', () => {
  const h = buildHistory({
    appliance: 'edge',
    since: null,
    until: null,
    snapshots: [
      {
        record: snap('3', '2026-11-22T14:00:00Z', { origin: 'rollback', reason: 'bad deploy' }),
        cause: snapshotCause(30, 30, [], () => true, 0),
      },
    ],
    applies: [],
    drift: [],
  });
  assert.match(formatHistoryTable(h), /rollback\s+3\s+3\s+-\s+reason: bad deploy\s+operator rollback: bad deploy/);
});

test('operator actions come before the snapshot they made and show who and why', () => {
  const at = new Date('2026-11-22T14:00:00Z');
  const h = buildHistory({
    appliance: 'edge',
    since: null,
    until: null,
    snapshots: [
      {
        record: snap('5', at.toISOString(), { origin: 'rollback', reason: 'bad deploy' }),
        cause: snapshotCause(50, 50, [], () => true, 0),
      },
    ],
    applies: [],
    drift: [],
    actions: [
      {
        id: '7',
        at,
        actor: 'alice (token)',
        action: 'rollback',
        reason: 'bad deploy',
        targetSnapshotId: '2',
        resultSnapshotId: '5',
        approvalSeq: null,
      },
      {
        id: '8',
        at: new Date('2026-11-22T14:01:00Z'),
        actor: 'bob (kubernetes)',
        action: 'approve',
        reason: 'team moved',
        targetSnapshotId: null,
        resultSnapshotId: null,
        approvalSeq: 42,
      },
    ],
  });
  assert.deepEqual(
    h.entries.map((e) => `${e.type}${e.id}`),
    ['rollback7', 'snapshot5', 'approval8'],
  );
  const approval = h.entries[2]!;
  assert.ok(approval.type === 'approval');
  assert.deepEqual([approval.actor, approval.reason, approval.approvalSeq], ['bob (kubernetes)', 'team moved', 42]);
  const table = formatHistoryTable(h);
  assert.match(table, /rollback\s+7\s+5\s+-\s+by alice \(token\)\s+operator rollback to 2 as snapshot 5: bad deploy/);
  assert.match(table, /approval\s+8\s+-\s+-\s+by bob \(kubernetes\)\s+approval seq 42: team moved/);
  assert.deepEqual(JSON.parse(JSON.stringify(h)), h, 'the report is plain JSON');
});
