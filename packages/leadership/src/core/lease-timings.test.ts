import { test } from 'node:test';
import assert from 'node:assert/strict';
import { actingDelayMs, leaseDeadline, leaseTimings } from './lease-timings.ts';
import { formatLeaseValue, parseLeaseValue } from './lease-value.ts';

const defaults = leaseTimings({ ttlMs: 4000, renewEveryMs: 1000, retryEveryMs: 500 });

test('default timings are accepted and the leader stops before Redis expires the key', () => {
  assert.ok(defaults.ok);
  const t = defaults.timings;
  assert.equal(t.driftMarginMs, 82);
  // Measured from before the request: a reply that took 900 ms does not extend the validity.
  assert.equal(leaseDeadline(10_000, t), 10_000 + 4000 - 82);
  assert.ok(t.commandTimeoutMs <= t.renewEveryMs && t.commandTimeoutMs >= 50);
});

test('a renew period that leaves no second attempt inside the TTL is refused as data', () => {
  const r = leaseTimings({ ttlMs: 1000, renewEveryMs: 600, retryEveryMs: 100 });
  assert.equal(r.ok, false);
  assert.equal(!r.ok && r.problem.reason, 'RenewTooSlow');
  assert.equal(leaseTimings({ ttlMs: 0, renewEveryMs: 1, retryEveryMs: 1 }).ok, false);
});

test('a lease granted by another Redis incarnation waits one TTL before acting; the same incarnation does not', () => {
  assert.ok(defaults.ok);
  assert.equal(actingDelayMs(null, 'run-b', defaults.timings), 0);
  assert.equal(actingDelayMs('run-b', 'run-b', defaults.timings), 0);
  assert.equal(actingDelayMs('run-a', 'run-b', defaults.timings), 4000);
});

test('lease values round-trip even when the holder id contains #', () => {
  assert.deepEqual(parseLeaseValue(formatLeaseValue({ holder: 'applier#1', nonce: 'ab12' })), {
    holder: 'applier#1',
    nonce: 'ab12',
  });
});
