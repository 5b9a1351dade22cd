import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CONFIRM_MS, REQUEST_COOLDOWN_MS, StateAudit } from './state-audit.ts';

const d = (digest: number, count: number) => ({ digest, count });

test('equal digests match; a difference is asked about only once it stayed the same for CONFIRM_MS', () => {
  const a = new StateAudit();
  assert.equal(a.observe('c', 'w1', 'Ingress', d(7, 3), d(7, 3), 0).type, 'match');
  assert.equal(a.observe('c', 'w1', 'Ingress', d(7, 3), d(9, 2), 1_000).type, 'pending');
  assert.equal(a.observe('c', 'w1', 'Ingress', d(7, 3), d(9, 2), 1_000 + CONFIRM_MS - 1).type, 'pending');
  const v = a.observe('c', 'w1', 'Ingress', d(7, 3), d(9, 2), 1_000 + CONFIRM_MS);
  assert.deepEqual(v, { type: 'request', watcher: d(7, 3), planner: d(9, 2) });
  assert.equal(a.observe('c', 'w1', 'Ingress', d(7, 3), d(9, 2), 60_000).type, 'pending', 'never twice for it');
});

test('a side that moves restarts the wait: a lagging replica or a change in flight is not a loss', () => {
  const a = new StateAudit();
  let t = 0;
  for (let i = 0; i < 10; i++, t += CONFIRM_MS) {
    // The planner folds a change between every two heartbeats: the difference never holds still.
    assert.equal(a.observe('c', 'w1', 'Service', d(1, 1), d(100 + i, 1), t).type, 'pending');
  }
  assert.equal(a.observe('c', 'w1', 'Service', d(5, 1), d(5, 1), t).type, 'match');
});

test('one request per cluster and kind per cooldown, across watcher replicas; other kinds and clusters apart', () => {
  const a = new StateAudit();
  a.observe('c', 'w1', 'Ingress', d(1, 1), d(2, 1), 0);
  assert.equal(a.observe('c', 'w1', 'Ingress', d(1, 1), d(2, 1), CONFIRM_MS).type, 'request');
  a.observe('c', 'w2', 'Ingress', d(1, 1), d(2, 1), 0);
  assert.equal(a.observe('c', 'w2', 'Ingress', d(1, 1), d(2, 1), CONFIRM_MS).type, 'pending', 'w1 already asked');
  a.observe('c', 'w1', 'Secret', d(1, 1), d(2, 1), 0);
  assert.equal(a.observe('c', 'w1', 'Secret', d(1, 1), d(2, 1), CONFIRM_MS).type, 'request');
  a.observe('other', 'w9', 'Ingress', d(1, 1), d(2, 1), 0);
  assert.equal(a.observe('other', 'w9', 'Ingress', d(1, 1), d(2, 1), CONFIRM_MS).type, 'request');
  // A new difference after the cooldown is asked about again.
  const later = CONFIRM_MS + REQUEST_COOLDOWN_MS;
  a.observe('c', 'w1', 'Ingress', d(3, 4), d(2, 4), later);
  assert.equal(a.observe('c', 'w1', 'Ingress', d(3, 4), d(2, 4), later + CONFIRM_MS).type, 'request');
});
