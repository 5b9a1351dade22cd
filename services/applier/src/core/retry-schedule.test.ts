import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextRetryDelayMs, retryDelayMs } from './retry-schedule.ts';

const policy = { baseMs: 500, capMs: 30_000 };

test('backoff doubles from the base, is capped, and jitters within [half, full]', () => {
  assert.equal(retryDelayMs(1, policy, 0), 250);
  assert.equal(retryDelayMs(1, policy, 1), 500);
  assert.equal(retryDelayMs(3, policy, 1), 2000);
  assert.equal(retryDelayMs(40, policy, 0.999_999), 30_000);
  assert.equal(retryDelayMs(40, policy, 0), 15_000);
  for (let attempt = 1; attempt < 12; attempt++) {
    const lo = retryDelayMs(attempt, policy, 0);
    const hi = retryDelayMs(attempt, policy, 1);
    assert.ok(lo <= hi && hi <= policy.capMs && lo >= hi / 2 - 1);
  }
});

test('retry only after failures; permanent refusals wait the cap', () => {
  assert.equal(nextRetryDelayMs(1, 0, 0, policy, 0.5), null);
  assert.equal(nextRetryDelayMs(1, 2, 0, policy, 0.5), 30_000);
  assert.equal(nextRetryDelayMs(2, 2, 1, policy, 0), 500);
});
