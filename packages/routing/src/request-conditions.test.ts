import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Route, VirtualService } from '@portolan/desired-state';
import { conditionsHold } from './request-conditions.ts';
import { matchRequest } from './route-matcher.ts';

const source = { cluster: 'c1', kind: 'HTTPRoute', namespace: 'shop', name: 'api' } as const;
const route = (order: number, pool: string, extra: Partial<Route> = {}): Route => ({
  host: 'shop.test',
  path: '/api',
  match: 'Prefix',
  pool,
  source,
  order,
  ...extra,
});
const get = (headers: Record<string, string> = {}, query = '', method = 'GET') => ({ method, headers, query });

test('conditions: method, headers by any-case name and whole value, query first occurrence decoded', () => {
  const r = route(0, 'p', {
    method: 'POST',
    headers: [
      { name: 'X-Env', type: 'Exact', value: 'canary' },
      { name: 'x-build', type: 'Regex', value: '[0-9]+' },
    ],
    queryParams: [{ name: 'v', type: 'Exact', value: 'a b' }],
  });
  const ok = get({ 'x-env': 'canary', 'X-BUILD': '42' }, 'v=a+b&v=other', 'post');
  assert.equal(conditionsHold(r, ok), true);
  assert.equal(conditionsHold(r, { ...ok, method: 'GET' }), false, 'method');
  assert.equal(conditionsHold(r, { ...ok, headers: { 'x-env': 'canary', 'x-build': '42a' } }), false, 'whole value');
  assert.equal(conditionsHold(r, { ...ok, headers: { 'x-build': '42' } }), false, 'a missing header');
  assert.equal(conditionsHold(r, { ...ok, query: 'v=other&v=a+b' }), false, 'the first occurrence decides');
  assert.equal(conditionsHold(r, { ...ok, query: 'v=a%20b' }), true, 'percent-decoded');
  assert.equal(
    conditionsHold(route(0, 'p', { headers: [{ name: 'h', type: 'Regex', value: '(' }] }), get({ h: '(' })),
    false,
  );
});

test('matchRequest with the request: the first route whose conditions hold, else 404 within the host', () => {
  const vs: VirtualService = {
    name: 'gw~default~80',
    address: { kind: 'default' },
    port: 80,
    protocol: 'http',
    owners: [],
    certificates: [],
    routes: [
      route(0, 'beta', { headers: [{ name: 'X-Cohort', type: 'Exact', value: 'beta' }] }),
      route(1, 'stable', { method: 'GET' }),
    ],
    defaultPool: null,
    redirectToHttpsPort: null,
    requestScript: null,
    responseScript: null,
    customization: null,
  };
  const pool = (o: ReturnType<typeof matchRequest>) => (o.kind === 'pool' ? o.pool : o.kind);
  assert.equal(pool(matchRequest(vs, 'shop.test', '/api/x', get({ 'x-cohort': 'beta' }))), 'beta');
  assert.equal(pool(matchRequest(vs, 'shop.test', '/api/x', get())), 'stable');
  assert.equal(pool(matchRequest(vs, 'shop.test', '/api/x', get({}, '', 'DELETE'))), 'not-found');
  assert.equal(
    pool(matchRequest(vs, 'shop.test', '/api/x')),
    'beta',
    'host and path alone, every route asking more: the first whose path matches',
  );
});
