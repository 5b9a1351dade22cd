import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Route } from '@portolan/desired-state';
import { newTransaction, runTrafficScript, type HttpTransaction, type RuleOutcome } from '@portolan/vtm-emulator';
import { route as baseRoute } from '../testing/desired-fixtures.ts';
import { responseRule } from './response-rule.ts';
import { VtmRouteRefusedError } from './route-values.ts';
import { routingRule } from './traffic-script.ts';

/** An HTTPRoute-style route of host `a.example` to pool `pool`. */
function route(path: string, pool: string, over: Partial<Route> = {}): Route {
  return { ...baseRoute('a.example', path, 'Prefix', pool), ...over };
}

function rule(routes: readonly Route[], listener = { protocol: 'http' as const, port: 8080 }): string {
  return routingRule({
    ownerComment: 'portolan:vtm:HTTPRoute/c1/default/r',
    virtualService: 'default.gw',
    routes: routes.map((r) => ({ route: r, pool: r.pool })),
    hasDefaultPool: false,
    wildcardLabels: 'any',
    listener,
  });
}

interface Sent {
  readonly url: string;
  readonly method?: string;
  readonly headers?: readonly [string, string][];
}

/** Runs the generated request rule on a request to a.example; returns the outcome and the transaction. */
function run(routes: readonly Route[], sent: Sent): { outcome: RuleOutcome; tx: HttpTransaction } {
  const request = { host: 'a.example:8080', url: sent.url, method: sent.method ?? 'GET' };
  const tx = newTransaction({ ...request, rawHeaders: [['Host', request.host], ...(sent.headers ?? [])] });
  return { outcome: runTrafficScript(rule(routes), request, tx), tx };
}

function poolOf(routes: readonly Route[], sent: Sent): string {
  const { outcome } = run(routes, sent);
  return outcome.kind === 'pool' ? outcome.pool : outcome.kind === 'response' ? outcome.status : outcome.kind;
}

const HOSTILE = 'a"b\\c $host ${x} "; pool.use("evil"); "\nd';

describe('routingRule: HTTPRoute matches', () => {
  const routes = [
    route('/r', 'regex', { match: 'Regex', path: '/r/[0-9]+' }),
    route('/h', 'header', { headers: [{ name: 'X-Env', type: 'Exact', value: 'canary' }] }),
    route('/h', 'header-re', { headers: [{ name: 'x-env', type: 'Regex', value: 'stag(e|ing)' }] }),
    route('/q', 'query', {
      queryParams: [
        { name: 'v', type: 'Exact', value: 'a b' },
        { name: 'v', type: 'Exact', value: 'ignored: only the first match of a name counts' },
      ],
    }),
    route('/q', 'query-re', { queryParams: [{ name: 'id', type: 'Regex', value: '[0-9]+' }] }),
    route('/m', 'method', { method: 'POST' }),
    route('/x', 'hostile', { headers: [{ name: 'X-Token', type: 'Exact', value: HOSTILE }] }),
    route('/', 'fallback'),
  ];
  const cases: { name: string; sent: Sent; want: string }[] = [
    { name: 'regex path matches the whole path', sent: { url: '/r/42' }, want: 'regex' },
    { name: 'regex path is anchored at the end', sent: { url: '/r/42/x' }, want: 'fallback' },
    { name: 'header names are case-insensitive', sent: { url: '/h', headers: [['x-ENV', 'canary']] }, want: 'header' },
    {
      name: 'header regex matches the whole value',
      sent: { url: '/h', headers: [['X-Env', 'staging']] },
      want: 'header-re',
    },
    {
      name: 'header regex does not match a part',
      sent: { url: '/h', headers: [['X-Env', 'staging2']] },
      want: 'fallback',
    },
    { name: 'absent header does not match', sent: { url: '/h' }, want: 'fallback' },
    { name: 'query values compare form-decoded', sent: { url: '/q?x=1&v=a+b' }, want: 'query' },
    { name: 'query %XX is decoded', sent: { url: '/q?v=a%20b' }, want: 'query' },
    { name: 'only the first occurrence of a parameter counts', sent: { url: '/q?v=no&v=a+b' }, want: 'fallback' },
    { name: 'a parameter name is not matched inside another', sent: { url: '/q?xv=a+b' }, want: 'fallback' },
    { name: 'query regex matches the whole value', sent: { url: '/q?id=123' }, want: 'query-re' },
    { name: 'method match', sent: { url: '/m', method: 'POST' }, want: 'method' },
    { name: 'other method falls through', sent: { url: '/m' }, want: 'fallback' },
    {
      name: 'a hostile header value matches verbatim',
      sent: { url: '/x', headers: [['X-Token', HOSTILE]] },
      want: 'hostile',
    },
    {
      name: 'a hostile value differing in $host does not match',
      sent: { url: '/x', headers: [['X-Token', HOSTILE.replace('$host', 'a.example')]] },
      want: 'fallback',
    },
  ];
  for (const c of cases) test(c.name, () => assert.equal(poolOf(routes, c.sent), c.want));

  test('an earlier route wins over a later one that also matches', () => {
    const both = [
      route('/p', 'first', { method: 'GET' }),
      route('/p', 'second', { headers: [{ name: 'a', type: 'Exact', value: '1' }] }),
    ];
    assert.equal(poolOf(both, { url: '/p', headers: [['a', '1']] }), 'first');
    assert.equal(poolOf([...both].reverse(), { url: '/p', headers: [['a', '1']] }), 'second');
  });
});

describe('routingRule: the most specific host that has routes decides (reference semantics)', () => {
  const routes = [
    route('/', 'exact', { headers: [{ name: 'x-env', type: 'Exact', value: 'canary' }] }),
    route('/', 'deep', { host: '*.b.example' }),
    route('/', 'wild', { host: '*.example' }),
    route('/', 'any', { host: '' }),
  ];
  const at = (host: string, headers: [string, string][] = []): string => {
    const request = { host, url: '/x' };
    const tx = newTransaction({ ...request, rawHeaders: [['Host', host], ...headers] });
    const outcome = runTrafficScript(rule(routes), request, tx);
    return outcome.kind === 'pool' ? outcome.pool : outcome.kind === 'response' ? outcome.status : outcome.kind;
  };
  const cases: { host: string; headers?: [string, string][]; want: string }[] = [
    { host: 'a.example', headers: [['X-Env', 'canary']], want: 'exact' },
    { host: 'A.Example.:80', headers: [['X-Env', 'canary']], want: 'exact' },
    { host: 'a.example', want: '404 Not Found' },
    { host: 'c.b.example', want: 'deep' },
    { host: 'c.d.example', want: 'wild' },
    { host: 'other.test', want: 'any' },
  ];
  for (const c of cases)
    test(`${c.host} ${JSON.stringify(c.headers ?? [])} → ${c.want}`, () => assert.equal(at(c.host, c.headers), c.want));
});

describe('routingRule: HTTPRoute filters', () => {
  test('request header edits: remove, set, add, values verbatim', () => {
    const r = route('/', 'p', {
      filters: {
        requestHeaders: {
          set: [{ name: 'X-Set', value: HOSTILE.replace('\n', ' ') }],
          add: [{ name: 'X-Add', value: '2' }],
          remove: ['X-Drop'],
        },
      },
    });
    const { outcome, tx } = run([r], {
      url: '/a',
      headers: [
        ['X-Set', 'old'],
        ['X-Add', '1'],
        ['X-Drop', 'x'],
      ],
    });
    assert.deepEqual(outcome, { kind: 'pool', pool: 'p', node: null });
    assert.deepEqual(tx.headers.slice(1), [
      ['X-Set', HOSTILE.replace('\n', ' ')],
      ['X-Add', '1'],
      ['X-Add', '2'],
    ]);
  });

  test('rewrite: hostname sets Host; ReplaceFullPath and ReplacePrefixMatch keep the query', () => {
    const cases: {
      path: string;
      to: { type: 'ReplaceFullPath' | 'ReplacePrefixMatch'; value: string };
      url: string;
      want: string;
    }[] = [
      { path: '/foo', to: { type: 'ReplaceFullPath', value: '/x' }, url: '/foo/bar?q=1', want: '/x?q=1' },
      { path: '/foo', to: { type: 'ReplacePrefixMatch', value: '/bar' }, url: '/foo/x?q=1', want: '/bar/x?q=1' },
      { path: '/foo/', to: { type: 'ReplacePrefixMatch', value: '/bar/' }, url: '/foo', want: '/bar' },
      { path: '/foo', to: { type: 'ReplacePrefixMatch', value: '/' }, url: '/foo/x', want: '/x' },
      { path: '/foo', to: { type: 'ReplacePrefixMatch', value: '/' }, url: '/foo', want: '/' },
      { path: '/', to: { type: 'ReplacePrefixMatch', value: '/p' }, url: '/a', want: '/p/a' },
    ];
    for (const c of cases) {
      const r = route(c.path, 'p', { filters: { rewrite: { hostname: 'b.example', path: c.to } } });
      const { tx } = run([r], { url: c.url });
      assert.equal(tx.url, c.want, JSON.stringify(c));
      assert.deepEqual(tx.headers[0], ['Host', 'b.example']);
    }
  });

  test('redirect: unset parts keep the request and the listener; a default port is left out', () => {
    const cases: { redirect: NonNullable<Route['filters']>['redirect']; want: string; status: string }[] = [
      { redirect: { statusCode: 302 }, want: 'http://a.example:8080/foo/x?q=1', status: '302 Found' },
      {
        redirect: { scheme: 'https', statusCode: 301 },
        want: 'https://a.example/foo/x?q=1',
        status: '301 Moved Permanently',
      },
      {
        redirect: { hostname: 'b.example', port: 80, statusCode: 308 },
        want: 'http://b.example/foo/x?q=1',
        status: '308 Permanent Redirect',
      },
      {
        redirect: { path: { type: 'ReplacePrefixMatch', value: '/bar' }, statusCode: 302 },
        want: 'http://a.example:8080/bar/x?q=1',
        status: '302 Found',
      },
      {
        redirect: { path: { type: 'ReplaceFullPath', value: '/z' }, statusCode: 302 },
        want: 'http://a.example:8080/z?q=1',
        status: '302 Found',
      },
    ];
    for (const c of cases) {
      const { outcome } = run([route('/foo', 'p', { filters: { redirect: c.redirect } })], { url: '/foo/x?q=1' });
      assert.equal(outcome.kind, 'response');
      if (outcome.kind !== 'response') continue;
      assert.equal(outcome.status, c.status);
      assert.equal(outcome.headers, `Location: ${c.want}`, JSON.stringify(c.redirect));
    }
  });

  test('fixedStatus answers the status itself', () => {
    assert.equal(poolOf([route('/', '', { fixedStatus: 500 })], { url: '/' }), '500 Internal Server Error');
  });

  test('response header edits: the request rule marks the route, the response rule applies its edits only', () => {
    const routes = [
      route('/a', 'p', {
        filters: { responseHeaders: { set: [{ name: 'X-R', value: '$v "a"' }], add: [], remove: ['Server'] } },
      }),
      route('/', 'q'),
    ];
    const response = responseRule('portolan:vtm:x', 'default.gw', routes);
    assert.ok(response !== null);
    for (const [url, want] of [
      ['/a', [['X-R', '$v "a"']]],
      ['/b', [['Server', 'node']]],
    ] as const) {
      const { tx } = run(routes, { url });
      tx.response = { status: 200, headers: [['Server', 'node']] };
      runTrafficScript(response, { host: '', url }, tx, 'response');
      assert.deepEqual(tx.response.headers, want, url);
    }
    assert.equal(responseRule('portolan:vtm:x', 'default.gw', [route('/', 'q')]), null);
  });
});

describe('routingRule: values TrafficScript or the wire cannot carry are refused', () => {
  const refused: { name: string; over: Partial<Route> }[] = [
    { name: 'a regex that would escape the anchors', over: { match: 'Regex', path: '/a)|(/b' } },
    { name: 'a Perl-only regex construct', over: { match: 'Regex', path: '/(?=x)' } },
    { name: 'a header name that is not a token', over: { headers: [{ name: 'X"a', type: 'Exact', value: 'v' }] } },
    {
      name: 'a newline in a header value to set',
      over: { filters: { requestHeaders: { set: [{ name: 'X', value: 'a\r\nB: c' }], add: [], remove: [] } } },
    },
    { name: 'an unknown method', over: { method: 'BREW' } },
    { name: 'a redirect status HTTPRoute does not allow', over: { filters: { redirect: { statusCode: 200 } } } },
  ];
  for (const c of refused)
    test(c.name, () => assert.throws(() => rule([route('/', 'p', c.over)]), VtmRouteRefusedError));
});
