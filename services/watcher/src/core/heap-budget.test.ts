import { test } from 'node:test';
import assert from 'node:assert/strict';
import { heapBudgetStep } from './heap-budget.ts';

const MiB = 1024 * 1024;

test('the governor collects only once the heap grew by more than the slack above its floor, and follows the floor down', () => {
  const s0 = { floorBytes: 30 * MiB };
  assert.deepEqual(heapBudgetStep(s0, 41 * MiB, 12 * MiB), { collect: false, state: s0 }, 'within the slack');
  assert.deepEqual(heapBudgetStep(s0, 43 * MiB, 12 * MiB), { collect: true });
  const lower = heapBudgetStep(s0, 25 * MiB, 12 * MiB);
  assert.deepEqual(lower, { collect: false, state: { floorBytes: 25 * MiB } }, 'a lower reading is the new floor');
  assert.deepEqual(
    heapBudgetStep({ floorBytes: 25 * MiB }, 38 * MiB, 12 * MiB),
    { collect: true },
    'measured from the new floor',
  );
});
