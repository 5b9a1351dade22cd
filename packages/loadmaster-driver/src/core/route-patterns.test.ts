import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Route } from '@portolan/desired-state';
import { routePattern } from './route-patterns.ts';
import { route } from '../testing/desired-builder.ts';

/** Evaluates the rules the way the appliance does for `inchost=1` URL rules: subject = Host header + path. */
function select(routes: readonly Route[], host: string, path: string): string[] {
  return routes
    .map((r, i) => ({ r, re: new RegExp(/^\/(.*)\/$/s.exec(routePattern(routes, i))?.[1] ?? '') }))
    .filter(({ re }) => re.test(`${host}${path}`))
    .map(({ r }) => r.pool);
}

const cases: { name: string; routes: Route[]; requests: [string, string, string[]][] }[] = [
  {
    name: 'Prefix matches by path element, not by characters',
    routes: [route('shop.example.com', '/foo', 'Prefix', 'foo')],
    requests: [
      ['shop.example.com', '/foo', ['foo']],
      ['shop.example.com', '/foo/', ['foo']],
      ['shop.example.com', '/foo/bar', ['foo']],
      ['shop.example.com', '/foobar', []],
      ['shop.example.com', '/', []],
    ],
  },
  {
    name: 'Exact matches only the path itself',
    routes: [route('shop.example.com', '/cart', 'Exact', 'cart')],
    requests: [
      ['shop.example.com', '/cart', ['cart']],
      ['shop.example.com', '/cart/', []],
      ['shop.example.com', '/cart/x', []],
    ],
  },
  {
    name: 'hosts are exact, case-insensitive, and tolerate a port in the Host header',
    routes: [route('shop.example.com', '/', 'Prefix', 'shop')],
    requests: [
      ['shop.example.com', '/x', ['shop']],
      ['SHOP.Example.com:8080', '/x', ['shop']],
      ['evil-shop.example.com', '/x', []],
      ['shop.example.com.evil', '/x', []],
    ],
  },
  {
    name: 'a wildcard host matches exactly one label',
    routes: [route('*.example.com', '/', 'Prefix', 'wild')],
    requests: [
      ['a.example.com', '/', ['wild']],
      ['a.b.example.com', '/', []],
      ['example.com', '/', []],
    ],
  },
  {
    name: 'the longer prefix wins without relying on rule order (rules are mutually exclusive)',
    routes: [
      route('shop.example.com', '/api/v2', 'Prefix', 'v2'),
      route('shop.example.com', '/api', 'Prefix', 'api'),
      route('', '/', 'Prefix', 'any'),
    ],
    requests: [
      ['shop.example.com', '/api/v2/items', ['v2']],
      ['shop.example.com', '/api/v2x', ['api']],
      ['shop.example.com', '/api', ['api']],
      ['shop.example.com', '/other', ['any']],
      ['other.example.com', '/api/v2', ['any']],
    ],
  },
  {
    name: 'Exact before Prefix on the same path',
    routes: [route('h.example.com', '/a', 'Exact', 'exact'), route('h.example.com', '/a', 'Prefix', 'prefix')],
    requests: [
      ['h.example.com', '/a', ['exact']],
      ['h.example.com', '/a/b', ['prefix']],
    ],
  },
  {
    name: 'regex metacharacters in paths are literal',
    routes: [route('h.example.com', '/a.b+(c)', 'Exact', 'lit')],
    requests: [
      ['h.example.com', '/a.b+(c)', ['lit']],
      ['h.example.com', '/aXb+(c)', []],
    ],
  },
];

for (const c of cases) {
  test(`route patterns: ${c.name}`, () => {
    for (const [host, path, want] of c.requests) assert.deepEqual(select(c.routes, host, path), want, `${host}${path}`);
  });
}

test('a route is not excluded by an earlier route to the same pool (no needless lookaheads)', () => {
  const routes = [route('h.example.com', '/a/b', 'Prefix', 'p'), route('h.example.com', '/a', 'Prefix', 'p')];
  assert.equal(routePattern(routes, 1).includes('(?!'), false);
  assert.equal(
    routePattern([route('h.example.com', '/a/b', 'Prefix', 'q'), routes[1] as Route], 1).includes('(?!'),
    true,
  );
});

test('Gateway API wildcards (any labels): the longer suffix keeps its hosts; never the bare domain', () => {
  const routes = [route('*.b.example.com', '/', 'Prefix', 'deep'), route('*.example.com', '/', 'Prefix', 'wild')];
  const pick = (host: string): string[] =>
    routes
      .map((r, i) => ({ r, re: new RegExp(/^\/(.*)\/$/s.exec(routePattern(routes, i, 'any'))?.[1] ?? '') }))
      .filter(({ re }) => re.test(`${host}/x`))
      .map(({ r }) => r.pool);
  assert.deepEqual(pick('a.example.com'), ['wild']);
  assert.deepEqual(pick('x.y.c.example.com:8443'), ['wild']);
  assert.deepEqual(pick('x.y.b.example.com'), ['deep'], 'one rule only: the earlier, longer suffix excludes it');
  assert.deepEqual(pick('example.com'), []);
  assert.deepEqual(pick('a/b.example.com'), []);
});
