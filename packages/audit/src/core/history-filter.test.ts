import { test } from 'node:test';
import assert from 'node:assert/strict';
import { filterHistory, objectMatches, type HistoryFilter } from './history-filter.ts';
import type { HistoryEntry, HistoryReport, SnapshotCause } from './history-report.ts';

const t = (s: number): string => new Date(Date.UTC(2026, 10, 22, 14, 0, s)).toISOString();
const cause = (...objects: string[]): SnapshotCause => ({
  fromSeq: 0,
  toSeq: 1,
  events: objects.length,
  filtered: true,
  objects: objects.map((object, i) => ({ object, resourceVersion: '1', event: 'MODIFIED', seq: i + 1, traceId: null })),
});
const snapshot = (id: string, at: number, ...objects: string[]): HistoryEntry => ({
  type: 'snapshot',
  at: t(at),
  id,
  parent: null,
  origin: 'plan',
  held: false,
  holdReason: null,
  reason: null,
  contentHash: `h${id}`,
  traceId: null,
  cause: cause(...objects),
});
const apply = (id: string, snapshotId: string, at: number): HistoryEntry => ({
  type: 'apply',
  at: t(at),
  id,
  snapshot: snapshotId,
  epoch: 1,
  leader: 'r1',
  trigger: 'snapshot',
  status: 'succeeded',
  operations: 1,
  failed: 0,
  reason: null,
  traceId: null,
  startedAt: t(at),
  rollbackReason: null,
});
const operator = (type: 'approval' | 'rollback' | 'resume', id: string, at: number): HistoryEntry => ({
  type,
  at: t(at),
  id,
  actor: 'alice (token)',
  reason: 'because',
  snapshot: null,
  resultSnapshot: null,
  approvalSeq: null,
});
const report: HistoryReport = {
  appliance: 'edge',
  since: null,
  until: null,
  entries: [
    snapshot('1', 0, 'c1/Ingress/shop/web', 'c1/EndpointSlice/shop/web-1'),
    apply('1', '1', 1),
    snapshot('2', 2, 'c1/Ingress/blog/web'),
    apply('2', '2', 3),
    { type: 'drift', at: t(4), id: '1', snapshot: '2', objects: ['pools/p'], action: 'corrected' },
    { type: 'hold', at: t(5), id: '1', seq: 9, object: 'c1/Ingress/shop/web', reason: 'relist lost 6 of 8' },
    {
      type: 'release',
      at: t(6),
      id: '1',
      seq: 10,
      object: 'c1/Ingress/shop/web',
      by: 'approval: alice',
      reason: 'moved',
      removed: true,
    },
    operator('approval', '1', 6),
    operator('rollback', '2', 7),
    snapshot('3', 7, 'c1/IngressClass/portolan'),
    apply('3', '3', 8),
    operator('resume', '3', 9),
  ],
};
const ids = (r: HistoryReport): string[] => r.entries.map((e) => `${e.type}${e.id}`);

test('history filters keep what they name, with the applies of the kept snapshots', () => {
  const cases: { name: string; filter: HistoryFilter; want: string[] }[] = [
    { name: 'no filter keeps everything', filter: {}, want: ids(report) },
    { name: 'object as people write it', filter: { object: 'Ingress shop/web' }, want: ['snapshot1', 'apply1'] },
    { name: 'object, any case, stored form', filter: { object: 'C1/INGRESS/SHOP' }, want: ['snapshot1', 'apply1'] },
    {
      name: 'object shared by two snapshots',
      filter: { object: 'ingress' },
      want: ['snapshot1', 'apply1', 'snapshot2', 'apply2', 'snapshot3', 'apply3'],
    },
    { name: 'object nobody changed', filter: { object: 'Service shop/db' }, want: [] },
    { name: 'blank object is no filter', filter: { object: '  ' }, want: ids(report) },
    {
      name: 'operator kinds',
      filter: { kinds: ['approval', 'rollback', 'resume'] },
      want: ['approval1', 'rollback2', 'resume3'],
    },
    { name: 'hold covers its release', filter: { kinds: ['hold'] }, want: ['hold1', 'release1'] },
    {
      name: 'drift and applies',
      filter: { kinds: ['drift', 'apply'] },
      want: ['apply1', 'apply2', 'drift1', 'apply3'],
    },
    { name: 'object and kinds together', filter: { object: 'blog', kinds: ['apply'] }, want: ['apply2'] },
  ];
  for (const c of cases) assert.deepEqual(ids(filterHistory(report, c.filter)), c.want, c.name);
});

test('an object matches in its stored form and as `Kind namespace/name`, cluster-scoped ones as `Kind name`', () => {
  assert.equal(objectMatches('c1/Ingress/shop/web', 'ingress shop/web'), true);
  assert.equal(objectMatches('c1/Ingress/shop/web', 'c1 ingress shop/web'), true);
  assert.equal(objectMatches('c1/IngressClass/portolan', 'ingressclass portolan'), true);
  assert.equal(objectMatches('c1/Ingress/shop/web', 'service shop/web'), false);
  assert.equal(filterHistory(report, { object: 'web' }).appliance, 'edge', 'the rest of the report is kept');
});
