import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { type EchoBackends, startEchoBackends } from '@portolan/echo-backend';
import { type Harness, freePort, request, startHarness } from './testing/haproxy-harness.ts';
import { desired, member, pool, route, service } from './testing/desired-fixtures.ts';

// One HAProxy for the file: Ingress routing semantics through real HAProxy, real sockets, echo backends.
let h: Harness;
let echo: EchoBackends;
let port: number;
const pods: Record<string, string> = {
  exact: '127.0.21.1',
  prefix: '127.0.21.2',
  wildcard: '127.0.21.3',
  fallback: '127.0.21.4',
  anyhost: '127.0.21.5',
};

before(async () => {
  h = await startHarness();
  echo = await startEchoBackends(Object.values(pods).map((address) => ({ address, port: 0 })));
  port = await freePort();
  const p = (name: string) => {
    const b = echo.backends.find((x) => x.address === pods[name]);
    return pool(name, b ? [member(b.address, b.port)] : []);
  };
  const state = desired({
    pools: ['exact', 'prefix', 'wildcard', 'fallback', 'anyhost'].map(p),
    virtualServices: [
      service(
        'http',
        port,
        [
          route('shop.test', '/foo', 'Exact', 'exact'),
          route('shop.test', '/bar', 'Prefix', 'prefix'),
          route('*.shop.test', '/', 'Prefix', 'wildcard'),
          route('', '/any', 'Prefix', 'anyhost'),
          { ...route('shop.test', '/pay', 'Prefix', 'prefix'), redirectToHttpsPort: 8443 },
        ],
        { defaultPool: 'fallback' },
      ),
    ],
  });
  const round = await h.apply(state);
  assert.deepEqual(
    round.results.map((r) => r.ok),
    [true],
    JSON.stringify(round.results),
  );
  assert.deepEqual(await h.pending(state), [], 'read-back after apply diffs to zero operations');
});

after(async () => {
  await echo?.close();
  await h?.[Symbol.asyncDispose]();
});

const cases: { host: string; path: string; want: string }[] = [
  { host: 'shop.test', path: '/foo', want: 'exact' },
  { host: 'shop.test', path: '/foo/', want: 'fallback' }, // Exact means exactly /foo
  { host: 'shop.test', path: '/foo/x', want: 'fallback' },
  { host: 'shop.test', path: '/bar', want: 'prefix' },
  { host: 'shop.test', path: '/bar/', want: 'prefix' },
  { host: 'shop.test', path: '/bar/baz?q=1', want: 'prefix' },
  { host: 'shop.test', path: '/barista', want: 'fallback' }, // Prefix is element-wise, not a string prefix
  { host: 'SHOP.test.:8080', path: '/bar', want: 'prefix' }, // host match ignores case, port and a trailing dot
  { host: 'shop.test', path: '/any', want: 'fallback' }, // the host has rules: any-host rules do not apply to it
  { host: 'a.shop.test', path: '/x', want: 'wildcard' },
  { host: 'a.b.shop.test', path: '/any/x', want: 'anyhost' }, // the wildcard covers one label only
  { host: 'other.test', path: '/any/thing', want: 'anyhost' },
  { host: 'other.test', path: '/nothing', want: 'fallback' },
];

for (const c of cases) {
  test(`GET ${c.host}${c.path} → ${c.want}`, async () => {
    const reply = await request(port, c.host, c.path);
    assert.equal(reply.status, 200);
    assert.equal(reply.echo?.address, pods[c.want]);
    assert.equal(reply.echo?.path, c.path);
  });
}

test('a route with per-route ssl-redirect answers 308 to https on its port; other routes of the host still proxy', async () => {
  const reply = await request(port, 'shop.test', '/pay/card?x=1');
  assert.equal(reply.status, 308);
  assert.equal(reply.headers['location'], 'https://shop.test:8443/pay/card?x=1');
  assert.equal((await request(port, 'shop.test', '/bar')).echo?.address, pods['prefix']);
});

test('responses carry the Server header, and the backend sees X-Forwarded-For and X-Forwarded-Proto', async () => {
  const reply = await request(port, 'shop.test', '/foo');
  assert.equal(reply.headers['server'], 'portolan');
  assert.equal(reply.echo?.forwardedFor, '127.0.0.1');
  assert.equal(reply.echo?.forwardedProto, 'http');
  assert.equal(reply.echo?.host, 'shop.test');
});

test('without a default backend, a request no rule matches gets 404 (with the Server header)', async () => {
  const state = desired({
    pools: [pool('exact', [member(pods['exact']!, echo.backends[0]!.port)])],
    virtualServices: [service('http', port, [route('shop.test', '/foo', 'Exact', 'exact')])],
  });
  const round = await h.apply(state);
  assert.ok(
    round.results.every((r) => r.ok),
    JSON.stringify(round.results),
  );
  const miss = await request(port, 'shop.test', '/nope');
  assert.equal(miss.status, 404);
  assert.equal(miss.headers['server'], 'portolan');
  assert.equal((await request(port, 'unknown.test', '/foo')).status, 404);
  assert.equal((await request(port, 'shop.test', '/foo')).echo?.address, pods['exact']);
});
