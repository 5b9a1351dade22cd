import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decideApplyTarget, mayConverge, type SnapshotHeader } from './apply-target.ts';
import { summarizeApply, isAppliedStatus } from './apply-outcome.ts';
import type { OperationOutcome } from '@portolan/appliance-driver';

const head = (id: string, held = false): SnapshotHeader => ({
  id,
  hash: `h${id}`,
  held,
  holdReason: held ? 'removes 50 % of hosts' : null,
});

test('target: the head when not held; the last applied snapshot (and one hold record) when held', () => {
  const rows = [
    { name: 'no snapshot yet', head: null, last: null, holds: [], want: { snapshotId: null, holdToRecord: null } },
    { name: 'fresh head', head: head('7'), last: '6', holds: [], want: { snapshotId: '7', holdToRecord: null } },
    {
      name: 'held head keeps the last applied and records the hold',
      head: head('8', true),
      last: '6',
      holds: [],
      want: { snapshotId: '6', holdToRecord: head('8', true) },
    },
    {
      name: 'a hold is recorded once',
      head: head('8', true),
      last: '6',
      holds: ['8'],
      want: { snapshotId: '6', holdToRecord: null },
    },
    {
      name: 'held with nothing applied yet: nothing to do',
      head: head('1', true),
      last: null,
      holds: [],
      want: { snapshotId: null, holdToRecord: head('1', true) },
    },
  ];
  for (const r of rows) assert.deepEqual(decideApplyTarget(r.head, r.last, new Set(r.holds)), r.want, r.name);
});

const outcome = (ok: boolean, retryable = true): OperationOutcome => ({
  operation: { objectType: 'pool', objectName: 'p', action: 'update', payload: {}, summary: 's' },
  result: ok ? { ok: true, detail: 'done' } : { ok: false, code: 'E', message: 'refused', retryable },
  durationMs: 1,
});

test('apply status: noop, succeeded, partial, failed, fenced', () => {
  assert.equal(summarizeApply(0, [], false).status, 'noop');
  assert.equal(summarizeApply(2, [outcome(true), outcome(true)], false).status, 'succeeded');
  const partial = summarizeApply(3, [outcome(true), outcome(false), outcome(false, false)], false);
  assert.deepEqual(partial, { status: 'partial', planned: 3, sent: 3, failed: 2, retryableFailed: 1 });
  assert.equal(summarizeApply(1, [outcome(false)], false).status, 'failed');
  assert.equal(summarizeApply(3, [outcome(true)], true).status, 'fenced');
  assert.equal(isAppliedStatus('partial'), true);
  assert.equal(isAppliedStatus('fenced'), false);
});

test('report policy leaves out-of-band drift of the applied snapshot alone; new targets and unfinished applies converge', () => {
  const base = { trigger: 'poll' as const, targetId: '5', driftPolicy: 'report' as const };
  assert.equal(mayConverge({ ...base, last: { snapshotId: '5', status: 'succeeded' } }), false);
  assert.equal(mayConverge({ ...base, last: { snapshotId: '5', status: 'partial' } }), true);
  assert.equal(mayConverge({ ...base, last: { snapshotId: '4', status: 'succeeded' } }), true);
  assert.equal(mayConverge({ ...base, last: null }), true);
  assert.equal(
    mayConverge({ ...base, trigger: 'drift-correction', last: { snapshotId: '5', status: 'succeeded' } }),
    true,
  );
  assert.equal(mayConverge({ ...base, driftPolicy: 'correct', last: { snapshotId: '5', status: 'succeeded' } }), true);
});

test('a held head converges to the newest unheld snapshot (a rollback target), never backwards past an approved one', () => {
  const held = {
    id: '12',
    hash: 'h12',
    held: true,
    holdReason: 'pinned by rollback to snapshot 11',
    newestUnheldId: '11',
  };
  assert.deepEqual(decideApplyTarget(held, '10', new Set()), { snapshotId: '11', holdToRecord: held });
  assert.deepEqual(decideApplyTarget(held, '11', new Set(['12'])), { snapshotId: '11', holdToRecord: null });
  const approvedLater = { ...held, id: '14', newestUnheldId: '11' };
  assert.deepEqual(
    decideApplyTarget(approvedLater, '13', new Set(['14'])).snapshotId,
    '13',
    'an approved snapshot applied after the unheld one stays',
  );
});
