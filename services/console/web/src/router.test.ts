/// <reference types="node" />
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { href, parseRoute, type Route } from './router.ts';

test('parseRoute reads every page of the console from the fragment', () => {
  const cases: { name: string; hash: string; want: Route }[] = [
    { name: 'empty is the fleet', hash: '', want: { page: 'fleet' } },
    { name: 'root', hash: '#/', want: { page: 'fleet' } },
    { name: 'appliance', hash: '#/appliances/edge', want: { page: 'appliance', name: 'edge' } },
    { name: 'snapshot', hash: '#/appliances/edge/snapshots/42', want: { page: 'snapshot', name: 'edge', id: '42' } },
    {
      name: 'operations',
      hash: '#/appliances/edge/applies/7/operations',
      want: { page: 'operations', name: 'edge', applyId: '7' },
    },
    {
      name: 'explain with query',
      hash: '#/appliances/edge/explain?q=shop.example.com%2Fcart&snapshot=3',
      want: { page: 'explain', name: 'edge', q: 'shop.example.com/cart', snapshot: '3' },
    },
    { name: 'at without time', hash: '#/appliances/edge/at', want: { page: 'at', name: 'edge', time: '' } },
    {
      name: 'rollback target',
      hash: '#/appliances/edge/rollback?to=9',
      want: { page: 'rollback', name: 'edge', to: '9' },
    },
    { name: 'diff', hash: '#/diff/4/5', want: { page: 'diff', from: '4', to: '5' } },
    { name: 'unknown page', hash: '#/nowhere', want: { page: 'not-found', path: '/nowhere' } },
    { name: 'bad escape', hash: '#/appliances/%E0', want: { page: 'not-found', path: '/appliances/%E0' } },
  ];
  for (const c of cases) assert.deepEqual(parseRoute(c.hash), c.want, c.name);
});

test('href and parseRoute agree, also for names that need escaping', () => {
  const name = 'edge eu/1';
  assert.deepEqual(parseRoute(href.appliance(name)), { page: 'appliance', name });
  assert.deepEqual(parseRoute(href.snapshot(name, '12')), { page: 'snapshot', name, id: '12' });
  assert.deepEqual(parseRoute(href.explain(name, 'a b/c?d')), { page: 'explain', name, q: 'a b/c?d', snapshot: '' });
  assert.deepEqual(parseRoute(href.at(name, '2026-11-28T08:00:00.000Z')), {
    page: 'at',
    name,
    time: '2026-11-28T08:00:00.000Z',
  });
  assert.deepEqual(parseRoute(href.rollback(name, '3')), { page: 'rollback', name, to: '3' });
});
