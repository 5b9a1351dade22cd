import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DriverCapabilities } from '@portolan/appliance-driver';
import type { RecordedApply } from './apply-log.ts';
import type { ApplyStatus } from './apply-outcome.ts';
import type { SnapshotHeader } from './apply-target.ts';
import {
  decideAfterDiff,
  decideAfterHead,
  observationFor,
  observedAfterSource,
  recordedReason,
  recordedTrigger,
  type CycleMemory,
} from './cycle-decisions.ts';

const last = (snapshotId: string, status: ApplyStatus): RecordedApply => ({
  id: '1',
  snapshotId,
  status,
  observedAfterHash: null,
  finishedAt: new Date(0),
});
const memory = (over: Partial<CycleMemory> = {}): CycleMemory => ({
  last: null,
  holds: new Set(),
  hasCleanRender: false,
  ...over,
});
const head = (id: string, over: Partial<SnapshotHeader> = {}): SnapshotHeader => ({
  id,
  hash: `h${id}`,
  held: false,
  holdReason: null,
  ...over,
});
const caps = (renderMatchesReadBack: boolean): DriverCapabilities => ({
  renderMatchesReadBack,
  acceptsWriteGate: false,
  batchExecution: false,
  configurationCheck: false,
});
const clean = memory({ last: last('7', 'succeeded'), hasCleanRender: true });

test('after the head: idle, in sync, or load', () => {
  const cases: { name: string; m: CycleMemory; h: SnapshotHeader | null; leader: boolean; want: string }[] = [
    { name: 'no head and nothing applied', m: memory(), h: null, leader: true, want: 'idle' },
    { name: 'no head: keep converging to the last applied', m: clean, h: null, leader: false, want: 'load 7' },
    { name: 'a poll for what a clean apply applied', m: clean, h: head('7'), leader: true, want: 'in-sync 7' },
    { name: 'the same, as a follower: decode anyway', m: clean, h: head('7'), leader: false, want: 'load 7' },
    { name: 'a new head', m: clean, h: head('8'), leader: true, want: 'load 8' },
    {
      name: 'after a partial apply the same snapshot is loaded again',
      m: memory({ last: last('7', 'partial'), hasCleanRender: true }),
      h: head('7'),
      leader: true,
      want: 'load 7',
    },
  ];
  for (const c of cases) {
    const d = decideAfterHead(c.m, c.h, 'poll', c.leader);
    assert.equal(d.kind === 'idle' ? 'idle' : `${d.kind} ${d.snapshotId}`, c.want, c.name);
    assert.equal(d.holdToRecord, null, c.name);
  }
});

test('a held head is recorded once and the last applied snapshot stays the target', () => {
  const held = head('9', { held: true, holdReason: 'pinned' });
  const first = decideAfterHead(clean, held, 'snapshot', true);
  assert.deepEqual([first.kind, first.holdToRecord?.id], ['in-sync', '9']);
  const again = decideAfterHead({ ...clean, holds: new Set(['9']) }, held, 'snapshot', true);
  assert.equal(again.holdToRecord, null);
});

test('the kept render stands for the appliance only for a new snapshot after a clean apply, where the driver allows', () => {
  assert.equal(observationFor(clean, 'snapshot', '8', caps(true)), 'clean-render');
  assert.equal(observationFor(clean, 'poll', '8', caps(true)), 'clean-render');
  assert.equal(observationFor(clean, 'snapshot', '8', caps(false)), 'read-back', 'LoadMaster: always read back');
  assert.equal(observationFor(clean, 'retry', '8', caps(true)), 'read-back');
  assert.equal(observationFor(clean, 'start', '8', caps(true)), 'read-back');
  assert.equal(observationFor(clean, 'snapshot', '7', caps(true)), 'read-back', 'the same snapshot again');
  assert.equal(observationFor({ ...clean, hasCleanRender: false }, 'snapshot', '8', caps(true)), 'read-back');
});

test('after the diff: in sync, pending under the report policy, or apply', () => {
  const input = { snapshotId: '7', trigger: 'poll' as const, driftPolicy: 'report' as const };
  assert.deepEqual(decideAfterDiff(clean, { ...input, operations: 0 }), {
    kind: 'in-sync',
    pending: 0,
    clearRetries: true,
  });
  assert.deepEqual(decideAfterDiff(clean, { ...input, operations: 3 }), {
    kind: 'in-sync',
    pending: 3,
    clearRetries: false,
  });
  assert.equal(decideAfterDiff(clean, { ...input, operations: 3, driftPolicy: 'correct' }).kind, 'apply');
  assert.equal(decideAfterDiff(clean, { ...input, operations: 0, snapshotId: '8' }).kind, 'apply', 'a new no-op');
  const failed = memory({ last: last('7', 'failed') });
  assert.equal(decideAfterDiff(failed, { ...input, operations: 0 }).kind, 'apply', 'a retry records its outcome');
  assert.equal(decideAfterDiff(memory(), { ...input, operations: 0 }).kind, 'apply', 'the first apply');
});

test('what an apply records: the read-back source, the trigger and the reason', () => {
  assert.equal(observedAfterSource(0, true), 'observed');
  assert.equal(observedAfterSource(2, true), 'rendered');
  assert.equal(observedAfterSource(2, false), 'read-back');
  assert.equal(recordedTrigger('drift-correction', 'rollback'), 'drift-correction');
  assert.equal(recordedTrigger('retry', 'plan'), 'retry');
  assert.equal(recordedTrigger('poll', 'rollback'), 'rollback');
  assert.equal(recordedTrigger('snapshot', 'plan'), 'snapshot');
  assert.equal(
    recordedReason(true, { origin: 'rollback', reason: 'bad deploy' }),
    'leadership or epoch lost before every operation was sent',
  );
  assert.equal(recordedReason(false, { origin: 'rollback', reason: 'bad deploy' }), 'bad deploy');
  assert.equal(recordedReason(false, { origin: 'plan', reason: 'x' }), null);
});

test('a tidy cycle loads the snapshot it holds, diffs against the kept render, may write, and is recorded as tidy', () => {
  const d = decideAfterHead(clean, head('7'), 'tidy', true);
  assert.equal(d.kind === 'idle' ? 'idle' : `${d.kind} ${d.snapshotId}`, 'load 7', 'not "in sync": the render changes');
  assert.equal(observationFor(clean, 'tidy', '7', caps(true)), 'clean-render');
  assert.equal(observationFor({ ...clean, hasCleanRender: false }, 'tidy', '7', caps(true)), 'read-back');
  const input = { snapshotId: '7', trigger: 'tidy' as const, driftPolicy: 'report' as const, operations: 1 };
  assert.equal(decideAfterDiff(clean, input).kind, 'apply', 'the report policy does not stop a tidy render');
  assert.equal(recordedTrigger('tidy', 'plan'), 'tidy');
});
