import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { type EchoBackends, startEchoBackends } from '@portolan/echo-backend';
import type { DesiredState, Route } from '@portolan/desired-state';
import { matchRequest } from '@portolan/routing';
import { type Harness, freePort, request, startHarness } from './testing/haproxy-harness.ts';
import { desired, gatewayRoute as gw, member, pool, service } from './testing/desired-fixtures.ts';

// One HAProxy for the file: HTTPRoute matches, filters and precedence through real HAProxy and echo backends.
let h: Harness;
let echo: EchoBackends;
let port: number;
let anyPort: number;
let tlsPort: number;
const names = ['exact', 'regex', 'method', 'header', 'query', 'prefix', 'rewrite', 'root', 'plain', 'wild', 'any'];
const pods = Object.fromEntries(names.map((n, i) => [n, `127.0.23.${i + 1}`]));
/** A header value full of haproxy.cfg syntax: quotes, an environment variable, a comment, a sample expression. */
const HOSTILE = `a'b "c" $HOME %[src] #x \\ }`;

const redirectTo = { scheme: 'https', hostname: 'new.test', port: 8443, statusCode: 301 } as const;

/** The HTTPRoute routes of host gw.test in precedence order (as the planner orders them), then other hosts. */
function routes(headerWeightPool = 'header'): Route[] {
  const api = (order: number, p: string, extra: Partial<Route>) => gw('gw.test', '/api', 'Prefix', p, order, extra);
  return [
    gw('gw.test', '/exact', 'Exact', 'exact', 0),
    gw('gw.test', '/hostile', 'Exact', 'header', 1, { headers: [{ name: 'X-Token', type: 'Exact', value: HOSTILE }] }),
    gw('gw.test', '/regex/[0-9]+|/exact', 'Regex', 'regex', 2),
    api(3, 'method', { method: 'POST' }),
    api(4, headerWeightPool, { headers: [{ name: 'x-env', type: 'Exact', value: 'canary' }] }),
    api(5, 'query', { queryParams: [{ name: 'v', type: 'Regex', value: '2|3' }] }),
    api(6, 'prefix', {
      filters: {
        requestHeaders: {
          set: [{ name: 'X-Set', value: HOSTILE }],
          add: [{ name: 'X-Add', value: 'two' }],
          remove: ['X-Drop'],
        },
        responseHeaders: { set: [{ name: 'X-Resp', value: '100%' }], add: [], remove: ['Content-Type'] },
      },
    }),
    gw('gw.test', '/old', 'Prefix', '', 7, {
      filters: { redirect: { ...redirectTo, path: { type: 'ReplacePrefixMatch', value: '/new' } } },
    }),
    gw('gw.test', '/moved', 'Prefix', '', 8, {
      filters: { redirect: { statusCode: 302, path: { type: 'ReplaceFullPath', value: '/landing' } } },
    }),
    gw('gw.test', '/rw', 'Prefix', 'rewrite', 9, {
      filters: { rewrite: { hostname: 'internal.test', path: { type: 'ReplacePrefixMatch', value: '/' } } },
    }),
    gw('gw.test', '/broken', 'Prefix', '', 10, { fixedStatus: 500 }),
    gw('gw.test', '/', 'Prefix', 'root', 11),
    gw('a.gw.test', '/only', 'Exact', 'plain', 0),
    gw('maps.test', '/', 'Prefix', 'plain', 0),
    gw('*.gw.test', '/', 'Prefix', 'wild', 0, { headers: [{ name: 'X-Wild', type: 'Exact', value: '1' }] }),
    gw('', '/', 'Prefix', 'any', 0, { method: 'GET' }),
  ];
}

/**
 * A listener whose wildcards reach any number of labels (Gateway API): the longest suffix with routes wins, by map
 * or by rule, and a wildcard never matches its own suffix. Its passthrough twin is checked by `haproxy -c` only.
 */
function anyLabelRoutes(): Route[] {
  return [
    gw('*.bar.test', '/', 'Prefix', 'wild', 0),
    gw('*.foo.bar.test', '/', 'Prefix', 'plain', 0),
    gw('*.deep.foo.bar.test', '/', 'Prefix', 'header', 0, { headers: [{ name: 'X-Deep', type: 'Exact', value: '1' }] }),
    gw('exact.foo.bar.test', '/', 'Prefix', 'exact', 0),
  ];
}

function state(weight = 1): DesiredState {
  return desired({
    pools: names.map((n) => {
      const b = echo.backends.find((x) => x.address === pods[n]);
      return pool(n, b ? [member(b.address, b.port, { weight: n === 'header' ? weight : 1 })] : []);
    }),
    virtualServices: [
      service('gw', port, routes()),
      service('gw-any', anyPort, anyLabelRoutes(), { wildcardLabels: 'any' }),
      service('gw-any-tls', tlsPort, anyLabelRoutes(), { wildcardLabels: 'any', protocol: 'tls-passthrough' }),
    ],
  });
}

before(async () => {
  h = await startHarness();
  const context = { namespace: 'default', ingress: 'web-route', service: 'echo', pod: 'echo-0' };
  echo = await startEchoBackends(Object.values(pods).map((address) => ({ address, port: 0, context })));
  port = await freePort();
  anyPort = await freePort();
  tlsPort = await freePort();
  const round = await h.apply(state());
  assert.deepEqual(
    round.results.map((r) => r.ok),
    round.results.map(() => true),
    JSON.stringify(round.results),
  );
  assert.deepEqual(await h.pending(state()), [], 'read-back after apply diffs to zero operations');
});

after(async () => {
  await echo?.close();
  await h?.[Symbol.asyncDispose]();
});

const cases: {
  name: string;
  host?: string;
  path: string;
  method?: string;
  headers?: Record<string, string>;
  want: string | number;
}[] = [
  { name: 'Exact wins over a later Regex that also matches', path: '/exact', want: 'exact' },
  { name: 'Exact is exact', path: '/exact/', want: 'root' },
  { name: 'Regex matches the whole path', path: '/regex/42', want: 'regex' },
  { name: 'Regex does not match a longer path', path: '/regex/42/x', want: 'root' },
  { name: 'Regex does not match a non-digit', path: '/regex/ab', want: 'root' },
  {
    name: 'method: POST wins over the header route after it',
    path: '/api/x',
    method: 'POST',
    headers: { 'X-Env': 'canary' },
    want: 'method',
  },
  { name: 'header name case-insensitive, value exact', path: '/api/x', headers: { 'X-ENV': 'canary' }, want: 'header' },
  { name: 'header value is case-sensitive', path: '/api/x', headers: { 'x-env': 'Canary' }, want: 'prefix' },
  { name: 'query regex matches the whole value', path: '/api?v=3&w=1', want: 'query' },
  { name: 'query regex does not match a longer value', path: '/api?v=23', want: 'prefix' },
  { name: 'Prefix matches the prefix itself', path: '/api', want: 'prefix' },
  { name: 'Prefix matches below it', path: '/api/', want: 'prefix' },
  { name: 'Prefix is element-wise', path: '/apix', want: 'root' },
  {
    name: 'a hostile header value matches verbatim',
    path: '/hostile',
    headers: { 'X-Token': HOSTILE },
    want: 'header',
  },
  { name: 'a hostile header value is not a wildcard', path: '/hostile', headers: { 'X-Token': 'a' }, want: 'root' },
  { name: 'fixed status', path: '/broken/x', want: 500 },
  {
    name: 'a more specific map host wins over a wildcard rule host',
    host: 'a.gw.test',
    path: '/x',
    headers: { 'X-Wild': '1' },
    want: 404,
  },
  {
    name: 'a map host keeps its map route',
    host: 'a.gw.test',
    path: '/only',
    headers: { 'X-Wild': '1' },
    want: 'plain',
  },
  {
    name: 'the wildcard rule host with its header',
    host: 'b.gw.test',
    path: '/x',
    headers: { 'X-Wild': '1' },
    want: 'wild',
  },
  { name: 'the wildcard rule host without its header', host: 'b.gw.test', path: '/x', want: 404 },
  { name: 'a map host wins over an any-host rule', host: 'maps.test', path: '/x', want: 'plain' },
  { name: 'the any-host rule with its method', host: 'other.test', path: '/x', want: 'any' },
  { name: 'the any-host rule without its method', host: 'other.test', path: '/x', method: 'DELETE', want: 404 },
];

for (const c of cases) {
  test(`${c.method ?? 'GET'} ${c.host ?? 'gw.test'}${c.path}: ${c.name} → ${c.want}`, async () => {
    const reply = await request(port, c.host ?? 'gw.test', c.path, {
      method: c.method ?? 'GET',
      headers: c.headers ?? {},
    });
    if (typeof c.want === 'number') {
      assert.equal(reply.status, c.want);
      assert.equal(reply.echo, null, 'answered by HAProxy, not a backend');
      return;
    }
    assert.equal(reply.status, 200);
    assert.equal(reply.echo?.address, pods[c.want]);
    assert.equal(reply.echo?.path, c.path);
  });
}

test('request header modifier: set replaces, add appends, remove deletes; hostile values arrive verbatim', async () => {
  const headers = { 'X-Set': 'old', 'X-Add': 'one', 'X-Drop': 'gone' };
  const reply = await request(port, 'gw.test', '/api/h', { headers });
  assert.equal(reply.echo?.address, pods['prefix']);
  assert.deepEqual(reply.echo?.headers?.['x-set'], [HOSTILE]);
  assert.deepEqual(reply.echo?.headers?.['x-add'], ['one', 'two']);
  assert.equal(reply.echo?.headers?.['x-drop'], undefined);
});

test('response header modifier: set and remove on the answer, % literal', async () => {
  const reply = await request(port, 'gw.test', '/api/h');
  assert.equal(reply.headers['x-resp'], '100%');
  assert.equal(reply.headers['content-type'], undefined);
  assert.equal(
    (await request(port, 'gw.test', '/api/h', { headers: { 'x-env': 'canary' } })).headers['x-resp'],
    undefined,
  );
});

test('redirect: scheme, host, port and a replaced prefix in Location; the query string stays', async () => {
  const reply = await request(port, 'gw.test', '/old/x?q=1');
  assert.equal(reply.status, 301);
  assert.equal(reply.headers['location'], 'https://new.test:8443/new/x?q=1');
  assert.equal((await request(port, 'gw.test', '/old')).headers['location'], 'https://new.test:8443/new');
});

test('redirect: unset parts keep the request host and the listener port; a full path replaces the path', async () => {
  const reply = await request(port, 'GW.test:1234', '/moved/deep?q=1');
  assert.equal(reply.status, 302);
  assert.equal(reply.headers['location'], `http://gw.test:${port}/landing?q=1`);
});

test('rewrite: the backend sees the new Host and the prefix replaced by /', async () => {
  const deep = await request(port, 'gw.test', '/rw/x/y?z=1');
  assert.equal(deep.echo?.address, pods['rewrite']);
  assert.equal(deep.echo?.host, 'internal.test');
  assert.equal(deep.echo?.path, '/x/y?z=1');
  assert.equal((await request(port, 'gw.test', '/rw')).echo?.path, '/');
  assert.equal((await request(port, 'gw.test', '/rw/')).echo?.path, '/');
  assert.equal((await request(port, 'gw.test', '/rwx')).echo?.address, pods['root'], 'element-wise prefix');
});

test('a weight change in a pool a rule route uses goes through the Runtime API: zero reloads', async () => {
  const masterReloads = async () => (await h.driver.showProc()).master.reloads;
  const reloads = await masterReloads();
  const driverReloads = h.driver.reloadCount;
  const round = await h.apply(state(5));
  assert.ok(round.operations.length > 0, 'the weight changed');
  assert.ok(
    round.operations.every((o) => o.objectType !== 'reload'),
    JSON.stringify(round.operations.map((o) => o.objectType)),
  );
  assert.ok(
    round.results.every((r) => r.ok),
    JSON.stringify(round.results),
  );
  assert.equal(await masterReloads(), reloads, 'HAProxy master counted no reload');
  assert.equal(h.driver.reloadCount, driverReloads);
  assert.deepEqual(await h.pending(state(5)), []);
  const slots = (await h.driver.readBack(AbortSignal.timeout(10_000))).backends.find((b) => b.name === 'http:header');
  assert.equal(slots?.slots.find((s) => s.state === 'ready')?.weight, 5);
  const reply = await request(port, 'gw.test', '/api/x', { headers: { 'x-env': 'canary' } });
  assert.equal(reply.echo?.address, pods['header']);
});

test('a route the driver refuses is a refusal of the configuration check, naming the route', async () => {
  const bad = desired({
    pools: [pool('root', [])],
    virtualServices: [
      service('gw', port, [
        gw('gw.test', '/', 'Prefix', 'root', 0, { headers: [{ name: 'X', type: 'Exact', value: 'a\nb' }] }),
      ]),
    ],
  });
  const verdict = await h.driver.checkConfiguration(bad, h.secrets);
  assert.equal(verdict.ok, false);
  assert.match(
    verdict.ok ? '' : verdict.message,
    /HTTPRoute c1\/default\/web-route: header X contains a control character/,
  );
});

/** `ref`: what the reference matcher says when it differs (it cannot judge header matches, so takes the route). */
const anyLabelCases: { host: string; headers?: Record<string, string>; want: string | number; ref?: string }[] = [
  { host: 'a.bar.test', want: 'wild' },
  { host: 'a.b.c.bar.test', want: 'wild' },
  { host: 'foo.bar.test', want: 'wild' },
  { host: 'a.foo.bar.test', want: 'plain' },
  { host: 'a.b.foo.bar.test', want: 'plain' },
  { host: 'exact.foo.bar.test', want: 'exact' },
  { host: 'x.deep.foo.bar.test', headers: { 'X-Deep': '1' }, want: 'header' },
  { host: 'x.y.deep.foo.bar.test', headers: { 'X-Deep': '1' }, want: 'header' },
  { host: 'x.deep.foo.bar.test', want: 404, ref: 'header' },
  { host: 'bar.test', want: 404 },
  { host: 'other.test', want: 404 },
];

for (const c of anyLabelCases) {
  test(`any-label wildcards: ${c.host}${c.headers ? ' with X-Deep' : ''} → ${c.want}, as the reference matcher`, async () => {
    const vs = state().virtualServices.find((v) => v.name === 'gw-any')!;
    const reference = matchRequest(vs, c.host, '/x');
    assert.equal(reference.kind === 'pool' ? reference.pool : 404, c.ref ?? c.want);
    const reply = await request(anyPort, c.host, '/x', { method: 'GET', headers: c.headers ?? {} });
    if (typeof c.want === 'number') {
      assert.equal(reply.status, c.want);
      return;
    }
    assert.equal(reply.status, 200);
    assert.equal(reply.echo?.address, pods[c.want]);
  });
}
