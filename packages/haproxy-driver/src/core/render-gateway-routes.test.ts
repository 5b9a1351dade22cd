import { test } from 'node:test';
import assert from 'node:assert/strict';
import { textOf, type DesiredState, type Route } from '@portolan/desired-state';
import { desired, gatewayRoute as gw, member, pool, route, service } from '../testing/desired-fixtures.ts';
import { type HaproxyRenderOptions, renderHaproxyBundle } from './render-haproxy-bundle.ts';
import type { HaproxyBundle } from './haproxy-bundle.ts';
import { diffHaproxy } from './diff-haproxy.ts';
import { ruleHosts } from './rule-hosts.ts';

const options: HaproxyRenderOptions = {
  configDir: '/etc/portolan/edge',
  defaultAddress: '192.0.2.10',
  sizing: { minFreeSlots: 1, slotIncrement: 2 },
  serverHeader: 'portolan',
  hardStopAfter: '5m',
};

const hostsTable: { name: string; routes: Route[]; want: string[] }[] = [
  {
    name: 'HTTPRoute routes on host and path alone stay in the maps',
    routes: [
      gw('a.test', '/x', 'Exact', 'p', 0),
      gw('a.test', '/x/y', 'Prefix', 'p', 1),
      gw('a.test', '/', 'Prefix', 'p', 2),
    ],
    want: [],
  },
  {
    name: 'one route with a header match moves its whole host to rules, not other hosts',
    routes: [
      gw('a.test', '/x', 'Exact', 'p', 0),
      gw('a.test', '/', 'Prefix', 'p', 1, { headers: [{ name: 'h', type: 'Exact', value: 'v' }] }),
      gw('b.test', '/', 'Prefix', 'p', 0),
    ],
    want: ['a.test'],
  },
  {
    name: 'each feature needs rules: regex, query, method, filters, fixed status',
    routes: [
      gw('r.test', '/.*', 'Regex', 'p', 0),
      gw('q.test', '/', 'Prefix', 'p', 0, { queryParams: [{ name: 'q', type: 'Exact', value: '1' }] }),
      gw('m.test', '/', 'Prefix', 'p', 0, { method: 'GET' }),
      gw('f.test', '/', 'Prefix', 'p', 0, { filters: { redirect: { statusCode: 302 } } }),
      gw('s.test', '/', 'Prefix', '', 0, { fixedStatus: 500 }),
      gw('e.test', '/', 'Prefix', 'p', 0, { filters: { requestHeaders: { set: [], add: [], remove: [] } } }),
    ],
    want: ['f.test', 'm.test', 'q.test', 'r.test', 's.test'],
  },
  {
    name: 'an order the maps would not follow (a shorter prefix first) moves the host to rules',
    routes: [gw('o.test', '/a', 'Prefix', 'p', 0), gw('o.test', '/a/b', 'Prefix', 'q', 1)],
    want: ['o.test'],
  },
  {
    name: 'so does an Exact path below an earlier prefix, but not one equal to it',
    routes: [
      gw('o.test', '/a', 'Prefix', 'p', 0),
      gw('o.test', '/a/', 'Exact', 'q', 1),
      gw('k.test', '/a/', 'Prefix', 'p', 0),
      gw('k.test', '/a', 'Exact', 'q', 1),
    ],
    want: ['o.test'],
  },
  {
    name: 'Ingress routes never become rules',
    routes: [route('i.test', '/a', 'Prefix', 'p'), route('i.test', '/a/b', 'Prefix', 'q')],
    want: [],
  },
];

for (const { name, routes, want } of hostsTable) {
  test(`rule hosts: ${name}`, () => assert.deepEqual([...ruleHosts(routes)].sort(), want));
}

function state(weight: number, headerValue: string, plainPath = '/plain'): DesiredState {
  return desired({
    pools: [pool('web', [member('10.0.0.1', 80, { weight })]), pool('api', [member('10.0.0.2', 80)])],
    virtualServices: [
      service('gw', 80, [
        gw('rules.test', '/api', 'Prefix', 'api', 0, {
          headers: [{ name: 'X-Env', type: 'Exact', value: headerValue }],
        }),
        gw('rules.test', '/', 'Prefix', 'web', 1),
        gw('maps.test', plainPath, 'Prefix', 'web', 0),
        gw('*.rules.test', '/', 'Prefix', '', 0, { fixedStatus: 500 }),
      ]),
    ],
  });
}

const mapOf = (b: HaproxyBundle, suffix: string) => b.maps.find((m) => m.path.endsWith(suffix))!.entries;
const config = (b: HaproxyBundle) => textOf(b.files.find((f) => f.path === 'haproxy.cfg')!.content);

test('frontend: map hosts in the maps, rule hosts only in the hosts map, rules between lookup and fallback', () => {
  const bundle = renderHaproxyBundle(state(1, 'canary'), options);
  assert.deepEqual(mapOf(bundle, '.exact.map'), [['maps.test/plain', 'http:web']]);
  assert.deepEqual(mapOf(bundle, '.prefix.map'), [['maps.test/plain/', 'http:web']]);
  assert.deepEqual(mapOf(bundle, '.hosts.map'), [
    ['*.rules.test', '*.rules.test'],
    ['maps.test', 'maps.test'],
    ['rules.test', 'rules.test'],
  ]);
  const lines = config(bundle)
    .split('\n')
    .map((l) => l.trim());
  const at = (prefix: string) => lines.findIndex((l) => l.startsWith(prefix));
  const lastLookup = lines.findLastIndex((l) => l.includes('map_beg('));
  assert.ok(lastLookup < at('http-request set-var(txn.gw) int(0)'), 'rules see the resolved host');
  assert.ok(at('http-request set-var(txn.gw) int(2)') < at('http-request set-var(txn.be) str(http:api) if gw_r0'));
  assert.ok(at('http-request return status 500 if gw_r2') < at('http-request return status 404'), 'before the 404');
  assert.ok(at('http-request redirect code 308') > at('http-request set-var(txn.be) str(http:web) if gw_r1'));
});

test('a weight change in a pool a rule route uses is runtime work, never a reload', () => {
  const before = renderHaproxyBundle(state(1, 'canary'), options);
  const after = renderHaproxyBundle(state(7, 'canary'), options, before.backends);
  const ops = diffHaproxy(after, before);
  assert.ok(ops.length > 0, 'the weight must change');
  assert.deepEqual(
    [...new Set(ops.map((o) => o.objectType))].filter((t) => t === 'reload'),
    [],
  );
});

test('a plain HTTPRoute path change is a map update; a rule change is one reload', () => {
  const base = renderHaproxyBundle(state(1, 'canary'), options);
  const moved = diffHaproxy(renderHaproxyBundle(state(1, 'canary', '/other'), options, base.backends), base);
  assert.ok(moved.length > 0 && moved.every((o) => o.objectType !== 'reload'), JSON.stringify(moved));
  const rule = diffHaproxy(renderHaproxyBundle(state(1, 'stable'), options, base.backends), base);
  assert.deepEqual(
    rule.map((o) => o.objectType),
    ['reload'],
  );
});

test('a listener with only Ingress routes renders no rule lines', () => {
  const bundle = renderHaproxyBundle(
    desired({
      pools: [pool('web', [])],
      virtualServices: [service('http', 80, [route('a.test', '/', 'Prefix', 'web')])],
    }),
    options,
  );
  assert.doesNotMatch(config(bundle), /gw_|txn\.gw/);
});
