import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pickWeighted } from './weighted-round-robin.ts';

const counts = (weights: number[], from: number, n: number): number[] => {
  const out = weights.map(() => 0);
  for (let pick = from; pick < from + n; pick += 1) {
    const i = pickWeighted(weights, pick);
    out[i] = (out[i] ?? 0) + 1;
  }
  return out;
};

test('90/10 over 100 consecutive picks is exactly 90 and 10, wherever the run starts', () => {
  assert.deepEqual(counts([90, 10], 0, 100), [90, 10]);
  assert.deepEqual(counts([90, 10], 37, 100), [90, 10]);
});

test('the sequence is smooth: 5/1/1 interleaves instead of bursting', () => {
  const names = 'abc';
  const seq = Array.from({ length: 7 }, (_, i) => names[pickWeighted([5, 1, 1], i)]).join('');
  assert.equal(seq, 'aabacaa');
});

test('equal weights are plain round robin; weights below 1 count as 1', () => {
  assert.deepEqual(
    Array.from({ length: 6 }, (_, i) => pickWeighted([3, 3, 3], i)),
    [0, 1, 2, 0, 1, 2],
  );
  assert.deepEqual(counts([0, 1], 0, 10), [5, 5]);
});
