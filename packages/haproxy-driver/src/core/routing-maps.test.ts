import { test } from 'node:test';
import assert from 'node:assert/strict';
import { httpRoutingMaps, renderMapFile, sniRoutingMaps } from './routing-maps.ts';
import { route } from '../testing/desired-fixtures.ts';

const backendOf = (pool: string): string | null => (pool === 'missing' ? null : `http:${pool}`);

const cases = [
  {
    name: 'Exact path is one exact entry; Prefix is the exact path plus "<path>/" in the prefix map',
    routes: [route('a.test', '/foo', 'Exact', 'x'), route('a.test', '/bar', 'Prefix', 'y')],
    want: {
      exact: [
        ['a.test/bar', 'http:y'],
        ['a.test/foo', 'http:x'],
      ],
      prefix: [['a.test/bar/', 'http:y']],
      hosts: [['a.test', 'a.test']],
    },
  },
  {
    name: 'Prefix "/" and the empty path match every path of the host (prefix map only)',
    routes: [route('a.test', '/', 'Prefix', 'x'), route('b.test', '', 'Prefix', 'y')],
    want: {
      exact: [],
      prefix: [
        ['a.test/', 'http:x'],
        ['b.test/', 'http:y'],
      ],
      hosts: [
        ['a.test', 'a.test'],
        ['b.test', 'b.test'],
      ],
    },
  },
  {
    name: 'a trailing slash on a Prefix path is ignored, as Kubernetes specifies',
    routes: [route('a.test', '/foo/', 'Prefix', 'x')],
    want: { exact: [['a.test/foo', 'http:x']], prefix: [['a.test/foo/', 'http:x']], hosts: [['a.test', 'a.test']] },
  },
  {
    name: 'wildcard hosts keep their "*." key; any-host routes are keyed by the path alone and mark no host',
    routes: [route('*.a.test', '/', 'Prefix', 'w'), route('', '/api', 'Prefix', 'any')],
    want: {
      exact: [['/api', 'http:any']],
      prefix: [
        ['*.a.test/', 'http:w'],
        ['/api/', 'http:any'],
      ],
      hosts: [['*.a.test', '*.a.test']],
    },
  },
  {
    name: 'the first route in precedence order wins a key (Exact before Prefix on the same path)',
    routes: [route('a.test', '/foo', 'Exact', 'exact'), route('a.test', '/foo', 'Prefix', 'prefix')],
    want: {
      exact: [['a.test/foo', 'http:exact']],
      prefix: [['a.test/foo/', 'http:prefix']],
      hosts: [['a.test', 'a.test']],
    },
  },
  {
    name: 'routes to unknown pools and keys a map file cannot hold are dropped',
    routes: [
      route('a.test', '/x', 'Exact', 'missing'),
      route('a.test', '/has space', 'Exact', 'x'),
      route('#c', '/', 'Prefix', 'x'),
    ],
    want: { exact: [], prefix: [], hosts: [] },
  },
] as const;

for (const c of cases) {
  test(`http maps: ${c.name}`, () => {
    assert.deepEqual(httpRoutingMaps(c.routes, backendOf), c.want);
  });
}

test('http maps: a per-route ssl-redirect maps to a redirect value, not a backend (no port part for 443)', () => {
  const maps = httpRoutingMaps(
    [
      { ...route('a.test', '/pay', 'Prefix', 'x'), redirectToHttpsPort: 8443 },
      { ...route('b.test', '/', 'Prefix', 'missing'), redirectToHttpsPort: 443 },
    ],
    backendOf,
  );
  assert.deepEqual(maps.exact, [['a.test/pay', 'https-redirect::8443']]);
  assert.deepEqual(maps.prefix, [
    ['a.test/pay/', 'https-redirect::8443'],
    ['b.test/', 'https-redirect:'],
  ]);
});

test('sni maps: exact names and wildcard suffixes; any-host routes are left to the default backend', () => {
  const maps = sniRoutingMaps(
    [
      route('db.test', '', 'Prefix', 'db'),
      route('*.svc.test', '', 'Prefix', 'svc'),
      route('', '', 'Prefix', 'any'),
      route('db.test', '', 'Prefix', 'late'),
    ],
    (pool) => `tcp:${pool}`,
  );
  assert.deepEqual(maps, { exact: [['db.test', 'tcp:db']], wildcard: [['svc.test', 'tcp:svc']] });
});

test('map files are one "key value" line per entry', () => {
  assert.equal(
    renderMapFile([
      ['a.test/', 'http:x'],
      ['b.test/', 'http:y'],
    ]),
    'a.test/ http:x\nb.test/ http:y\n',
  );
  assert.equal(renderMapFile([]), '');
});
