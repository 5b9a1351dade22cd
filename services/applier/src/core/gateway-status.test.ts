import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextGatewayStatus } from './gateway-status.ts';

const ours = 'portolan.dev/gateway-controller';
const accepted = (status: string) => ({
  type: 'Accepted',
  status,
  reason: 'Accepted',
  message: '',
  observedGeneration: 1,
});

test('a condition whose status holds keeps its lastTransitionTime; a changed one is stamped now', () => {
  const current = {
    conditions: [
      { ...accepted('True'), lastTransitionTime: '2026-01-01T00:00:00Z' },
      {
        type: 'Programmed',
        status: 'False',
        reason: 'Invalid',
        message: '',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ],
  };
  const planned = {
    conditions: [accepted('True'), { type: 'Programmed', status: 'True', reason: 'Programmed', message: '' }],
  };
  const next = nextGatewayStatus('Gateway', current, planned, '2026-11-27T10:00:00Z') as {
    conditions: { lastTransitionTime: string }[];
  };
  assert.deepEqual(
    next.conditions.map((c) => c.lastTransitionTime),
    ['2026-01-01T00:00:00Z', '2026-11-27T10:00:00Z'],
  );
  assert.equal(nextGatewayStatus('Gateway', next, planned, '2026-11-27T11:00:00Z'), null, 'nothing to write again');
});

test("a route's parents of other controllers are kept; ours are replaced", () => {
  const theirs = { parentRef: { name: 'other' }, controllerName: 'example.com/other', conditions: [] };
  const stale = { parentRef: { name: 'shared' }, controllerName: ours, conditions: [accepted('False')] };
  const planned = {
    parents: [{ parentRef: { name: 'shared' }, controllerName: ours, conditions: [accepted('True')] }],
  };
  const next = nextGatewayStatus('HTTPRoute', { parents: [theirs, stale] }, planned, '2026-11-27T10:00:00Z') as {
    parents: { controllerName: string; conditions: { status: string }[] }[];
  };
  assert.deepEqual(
    next.parents.map((p) => `${p.controllerName} ${p.conditions.map((c) => c.status).join(',')}`),
    ['example.com/other ', `${ours} True`],
  );
});

test("withdrawing a controller's route parents keeps the others' and writes nothing when none are left to remove", () => {
  const theirs = { parentRef: { name: 'other' }, controllerName: 'example.com/other', conditions: [] };
  const mine = { parentRef: { name: 'shared' }, controllerName: ours, conditions: [accepted('True')] };
  const next = nextGatewayStatus('HTTPRoute', { parents: [theirs, mine] }, { parents: [] }, 'now', [ours]);
  assert.deepEqual(next, { parents: [theirs] });
  assert.equal(nextGatewayStatus('HTTPRoute', { parents: [theirs] }, { parents: [] }, 'now', [ours]), null);
});
