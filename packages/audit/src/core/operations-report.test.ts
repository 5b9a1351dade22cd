import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApplyRecord } from './history-report.ts';
import { buildOperationsReport, formatOperationsTable } from './operations-report.ts';

const apply: ApplyRecord = {
  id: '7',
  snapshotId: '3',
  epoch: 2,
  leaderId: 'a',
  trigger: 'snapshot',
  status: 'partial',
  operations: 3,
  failed: 1,
  reason: null,
  startedAt: new Date('2026-11-22T10:00:00Z'),
  finishedAt: new Date('2026-11-22T10:00:01Z'),
  traceId: null,
  observedAfterHash: null,
};
const op = (objectType: string, objectName: string, action = 'update') => ({
  objectType,
  objectName,
  action,
  payload: { n: objectName },
  summary: `${action} ${objectType}/${objectName}`,
});
const result = (objectType: string, objectName: string, ok: boolean, durationMs = 4) => ({
  objectType,
  objectName,
  action: 'update',
  durationMs,
  result: ok ? { ok } : { ok, code: 'Refused', message: 'no such node' },
});

test('operations pair with their results by object and action, whatever order they ran in; one without a result was not sent', () => {
  const r = buildOperationsReport(
    'lb',
    apply,
    [op('pools', 'web'), op('pools', 'api'), op('virtual_servers', 'vs')],
    [result('pools', 'api', false, 9), result('pools', 'web', true)],
  );
  assert.deepEqual(
    r.operations.map((o) => [o.objectName, o.result, o.error, o.durationMs]),
    [
      ['web', 'ok', null, 4],
      ['api', 'failed', 'Refused: no such node', 9],
      ['vs', 'not sent', null, null],
    ],
  );
  assert.deepEqual(r.operations[0]!.payload, { n: 'web' });
  const text = formatOperationsTable(r);
  assert.match(
    text,
    /^Apply 7 of lb: snapshot 3, epoch 2, leader a, snapshot, partial; 2026-11-22T10:00:00.000Z → 2026-11-22T10:00:01.000Z\n/,
  );
  assert.match(text, /2\s+failed\s+update\s+pools\s+api\s+Refused: no such node\s+9 ms/);
  assert.match(text, /3\s+not sent\s+update\s+virtual_servers\s+vs\s+update virtual_servers\/vs\s+-/);
});

test('the same object twice takes two results in turn; an apply without operations says so, and why only for a noop', () => {
  const r = buildOperationsReport(
    'lb',
    apply,
    [op('pools', 'web'), op('pools', 'web')],
    [result('pools', 'web', true, 1), result('pools', 'web', false, 2)],
  );
  assert.deepEqual(
    r.operations.map((o) => [o.result, o.durationMs]),
    [
      ['ok', 1],
      ['failed', 2],
    ],
  );
  assert.match(
    formatOperationsTable(buildOperationsReport('lb', { ...apply, status: 'noop' }, [], [])),
    /No operations: the appliance already held that configuration\.\n$/,
  );
  assert.match(
    formatOperationsTable(
      buildOperationsReport('lb', { ...apply, status: 'held', reason: 'removes 60 % of members' }, [], []),
    ),
    /held \(removes 60 % of members\);.*\nNo operations were recorded\.\n$/,
  );
});
