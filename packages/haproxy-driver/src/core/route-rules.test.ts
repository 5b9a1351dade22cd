import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Route } from '@portolan/desired-state';
import { HaproxyRouteRefusedError } from '../errors.ts';
import { gatewayRoute as gw } from '../testing/desired-fixtures.ts';
import { configWords } from '../testing/config-words.ts';
import { type RuleListener, routeRuleLines } from './route-rules.ts';

const listener: RuleListener = { protocol: 'http', port: 8080 };
const backendOf = (pool: string): string | null => (pool === 'missing' ? null : `http:${pool}`);

/** The rule lines of `routes`, all of whose hosts are rule hosts. */
function lines(routes: readonly Route[], on: RuleListener = listener) {
  return routeRuleLines(routes, new Set(routes.map((r) => r.host)), on, backendOf);
}

test('selection: one line per route in routes order, first match wins (!gw_sel), actions after all selections', () => {
  const out = lines([
    gw('shop.test', '/a', 'Exact', 'exact', 0, { method: 'GET' }),
    gw('shop.test', '/api/', 'Prefix', 'prefix', 1, { headers: [{ name: 'X-Env', type: 'Exact', value: 'canary' }] }),
    gw('shop.test', '^/v[0-9]+/.*', 'Regex', 'regex', 2, { fixedStatus: 503 }),
    gw('*.shop.test', '/', 'Prefix', 'wild', 0, { queryParams: [{ name: 'q', type: 'Regex', value: 'x|y' }] }),
    gw('', '/', 'Prefix', 'any', 0, { method: 'POST' }),
  ]);
  assert.deepEqual(out.acls, [
    'acl gw_sel var(txn.gw) -m found',
    "acl gw_h0 var(txn.host_known) -m str -- 'shop.test'",
    "acl gw_r0_p path -m str -- '/a'",
    'acl gw_r0_m method GET',
    'acl gw_r0 var(txn.gw) -m int eq 0',
    "acl gw_r1_p path -m str -- '/api'",
    "acl gw_r1_p path -m beg -- '/api/'",
    "acl gw_r1_h0 req.fhdr(X-Env) -m str -- 'canary'",
    'acl gw_r1 var(txn.gw) -m int eq 1',
    "acl gw_r2_p path -m reg -- '^(?:^/v[0-9]+/.*)$'",
    'acl gw_r2 var(txn.gw) -m int eq 2',
    "acl gw_h1 var(txn.host_known) -m str -- '*.shop.test'",
    "acl gw_r3_q0 url_param(q),url_dec(1) -m reg -- '^(?:x|y)$'",
    'acl gw_r3 var(txn.gw) -m int eq 3',
    'acl gw_r4_m method POST',
    'acl gw_r4 var(txn.gw) -m int eq 4',
  ]);
  assert.deepEqual(out.request, [
    'http-request set-var(txn.gw) int(0) if !gw_sel !routed gw_h0 gw_r0_p gw_r0_m',
    'http-request set-var(txn.gw) int(1) if !gw_sel !routed gw_h0 gw_r1_p gw_r1_h0',
    'http-request set-var(txn.gw) int(2) if !gw_sel !routed gw_h0 gw_r2_p',
    'http-request set-var(txn.gw) int(3) if !gw_sel !routed gw_h1 gw_r3_q0',
    // Any-host routes apply only when no host of the listener has routes (the map chain left host_known unset).
    'http-request set-var(txn.gw) int(4) if !gw_sel !routed !host_known gw_r4_m',
    'http-request set-var(txn.be) str(http:exact) if gw_r0',
    'http-request set-var(txn.be) str(http:prefix) if gw_r1',
    'http-request return status 503 if gw_r2',
    'http-request set-var(txn.be) str(http:wild) if gw_r3',
    'http-request set-var(txn.be) str(http:any) if gw_r4',
  ]);
  assert.deepEqual(out.response, []);
});

test('only routes of the given hosts become rules; the first match per header or parameter name counts', () => {
  const out = routeRuleLines(
    [
      gw('maps.test', '/', 'Prefix', 'm', 0),
      gw('rules.test', '/', 'Prefix', 'r', 0, {
        headers: [
          { name: 'X-A', type: 'Exact', value: '1' },
          { name: 'x-a', type: 'Exact', value: '2' },
        ],
        queryParams: [
          { name: 'p', type: 'Exact', value: '1' },
          { name: 'P', type: 'Exact', value: '2' },
          { name: 'p', type: 'Exact', value: '3' },
        ],
      }),
    ],
    new Set(['rules.test']),
    listener,
    backendOf,
  );
  assert.deepEqual(out.request.slice(0, 1), [
    'http-request set-var(txn.gw) int(0) if !gw_sel !routed gw_h0 gw_r0_h0 gw_r0_q0 gw_r0_q1',
  ]);
  assert.deepEqual(
    out.acls.filter((l) => /_r0_[hq]\d /.test(l)),
    [
      "acl gw_r0_h0 req.fhdr(X-A) -m str -- '1'",
      "acl gw_r0_q0 url_param(p),url_dec(1) -m str -- '1'",
      "acl gw_r0_q1 url_param(P),url_dec(1) -m str -- '2'",
    ],
  );
});

test('header modifiers: remove, then set (replaces), then add (appends), on requests and on responses', () => {
  const edits = {
    set: [{ name: 'X-Set', value: 'v 1' }],
    add: [{ name: 'X-Add', value: '50%' }],
    remove: ['X-Drop'],
  };
  const out = lines([
    gw('h.test', '/', 'Prefix', 'p', 0, { filters: { requestHeaders: edits, responseHeaders: edits } }),
  ]);
  assert.deepEqual(out.request.slice(1), [
    'http-request del-header X-Drop if gw_r0',
    "http-request set-header X-Set 'v 1' if gw_r0",
    "http-request add-header X-Add '50%%' if gw_r0",
    'http-request set-var(txn.be) str(http:p) if gw_r0',
  ]);
  assert.deepEqual(out.response, [
    'http-after-response del-header X-Drop if gw_r0',
    "http-after-response set-header X-Set 'v 1' if gw_r0",
    "http-after-response add-header X-Add '50%%' if gw_r0",
  ]);
});

const redirects: { name: string; redirect: NonNullable<NonNullable<Route['filters']>['redirect']>; want: string[] }[] =
  [
    {
      name: 'a bare redirect keeps scheme, host, the listener port, path and query',
      redirect: { statusCode: 302 },
      want: ["http-request redirect location 'http://%[var(txn.host)]:8080%[pathq]' code 302 if gw_r0"],
    },
    {
      name: 'a scheme alone implies its well-known port, which Location leaves out',
      redirect: { scheme: 'https', statusCode: 301 },
      want: ["http-request redirect location 'https://%[var(txn.host)]%[pathq]' code 301 if gw_r0"],
    },
    {
      name: 'hostname and port given; port 80 of http left out',
      redirect: { hostname: 'example.org', port: 80, statusCode: 308 },
      want: ["http-request redirect location 'http://example.org%[pathq]' code 308 if gw_r0"],
    },
    {
      name: 'ReplaceFullPath rewrites the path first; the query string stays',
      redirect: { path: { type: 'ReplaceFullPath', value: '/new' }, port: 8443, scheme: 'https', statusCode: 302 },
      want: [
        "http-request set-path '/new' if gw_r0",
        "http-request redirect location 'https://%[var(txn.host)]:8443%[pathq]' code 302 if gw_r0",
      ],
    },
    {
      name: 'ReplacePrefixMatch replaces the matched prefix element-wise',
      redirect: { path: { type: 'ReplacePrefixMatch', value: '/bar/' }, statusCode: 302 },
      want: [
        "http-request replace-path '^/foo(/.*)?$' '/bar\\1' if gw_r0",
        "http-request redirect location 'http://%[var(txn.host)]:8080%[pathq]' code 302 if gw_r0",
      ],
    },
  ];

for (const { name, redirect, want } of redirects) {
  test(`redirect: ${name}`, () => {
    const out = lines([gw('h.test', '/foo/', 'Prefix', '', 0, { filters: { redirect } })]);
    assert.deepEqual(out.request.slice(1), want);
  });
}

test('rewrite: Host and the path; a prefix replaced with / never leaves an empty path', () => {
  const rewrite = (path: string, value: string) =>
    lines([
      gw('h.test', path, 'Prefix', 'p', 0, {
        filters: { rewrite: { hostname: 'internal.test', path: { type: 'ReplacePrefixMatch', value } } },
      }),
    ]).request.slice(1, -1);
  assert.deepEqual(rewrite('/foo', '/'), [
    "http-request set-header Host 'internal.test' if gw_r0",
    "http-request replace-path '^/foo/?$' '/' if gw_r0",
    "http-request replace-path '^/foo(/.*)$' '\\1' if gw_r0",
  ]);
  // Regex metacharacters of the prefix are literal; the replacement's % is literal too.
  assert.deepEqual(rewrite('/a.b+(c)', '/x%2F'), [
    "http-request set-header Host 'internal.test' if gw_r0",
    "http-request replace-path '^/a\\.b\\+\\(c\\)(/.*)?$' '/x%%2F\\1' if gw_r0",
  ]);
  assert.deepEqual(rewrite('/', '/'), ["http-request set-header Host 'internal.test' if gw_r0"]);
  const full = lines([
    gw('h.test', '/x', 'Exact', 'p', 0, { filters: { rewrite: { path: { type: 'ReplaceFullPath', value: '/y' } } } }),
  ]);
  assert.deepEqual(full.request.slice(1), [
    "http-request set-path '/y' if gw_r0",
    'http-request set-var(txn.be) str(http:p) if gw_r0',
  ]);
});

test('a route whose pool has no backend answers 500 instead of falling through; ssl-redirect routes keep the marker', () => {
  const out = lines([
    gw('h.test', '/a', 'Exact', 'missing', 0, { method: 'GET' }),
    gw('h.test', '/b', 'Exact', 'p', 1, { method: 'GET', redirectToHttpsPort: 8443 }),
  ]);
  assert.deepEqual(out.request.slice(2), [
    'http-request return status 500 if gw_r0',
    'http-request set-var(txn.be) str(https-redirect::8443) if gw_r1',
  ]);
});

test('hostile values render as single quoted words; every rule line parses to the words intended', () => {
  const hostile = "x' if TRUE\thttp-request return status 200 #";
  const out = lines([
    gw('h.test', "/it's", 'Exact', 'p', 0, {
      headers: [{ name: 'X-Evil', type: 'Exact', value: "a' || { always_true } '$HOME" }],
      filters: { requestHeaders: { set: [{ name: 'X-Set', value: "%[src] ' ; ${PATH} #" }], add: [], remove: [] } },
    }),
  ]);
  for (const line of [...out.acls, ...out.request]) assert.doesNotThrow(() => configWords(line), line);
  const acl = out.acls.find((l) => l.startsWith('acl gw_r0_h0'))!;
  assert.deepEqual(configWords(acl), [
    'acl',
    'gw_r0_h0',
    'req.fhdr(X-Evil)',
    '-m',
    'str',
    '--',
    "a' || { always_true } '$HOME",
  ]);
  const set = out.request.find((l) => l.includes('set-header'))!;
  assert.deepEqual(configWords(set), ['http-request', 'set-header', 'X-Set', "%%[src] ' ; ${PATH} #", 'if', 'gw_r0']);
  assert.deepEqual(configWords(out.acls.find((l) => l.startsWith('acl gw_r0_p'))!).slice(-1), ["/it's"]);
  assert.throws(
    () => lines([gw('h.test', '/', 'Prefix', 'p', 0, { headers: [{ name: 'X', type: 'Exact', value: hostile }] })]),
    HaproxyRouteRefusedError,
  );
});

const refusals: { name: string; route: Route; reason: RegExp }[] = [
  {
    name: 'newline in a header value',
    route: gw('h.test', '/', 'Prefix', 'p', 0, { headers: [{ name: 'X', type: 'Exact', value: 'a\nacl b' }] }),
    reason: /header X contains a control character/,
  },
  {
    name: 'a header name with a parenthesis',
    route: gw('h.test', '/', 'Prefix', 'p', 0, { headers: [{ name: 'x)', type: 'Exact', value: 'a' }] }),
    reason: /not a supported name/,
  },
  { name: 'a regex escaping its wrapper', route: gw('h.test', 'a)|(.*', 'Regex', 'p', 0), reason: /unbalanced/ },
  {
    name: 'a query regex with PCRE options',
    route: gw('h.test', '/', 'Prefix', 'p', 0, { queryParams: [{ name: 'q', type: 'Regex', value: '(?s).*' }] }),
    reason: /not POSIX/,
  },
  {
    name: 'an unknown method',
    route: gw('h.test', '/', 'Prefix', 'p', 0, { method: 'GET if TRUE' }),
    reason: /method/,
  },
  {
    name: 'a redirect scheme with a format',
    route: gw('h.test', '/', 'Prefix', '', 0, { filters: { redirect: { scheme: 'ftp%[src]', statusCode: 302 } } }),
    reason: /scheme/,
  },
  {
    name: 'an unsupported redirect code',
    route: gw('h.test', '/', 'Prefix', '', 0, { filters: { redirect: { statusCode: 200 } } }),
    reason: /redirect status 200/,
  },
  {
    name: 'a redirect host with a format',
    route: gw('h.test', '/', 'Prefix', '', 0, {
      filters: { redirect: { hostname: '%[req.hdr(cookie)]', statusCode: 302 } },
    }),
    reason: /not a hostname/,
  },
  {
    name: 'a rewrite path with a back-reference',
    route: gw('h.test', '/', 'Prefix', 'p', 0, {
      filters: { rewrite: { path: { type: 'ReplaceFullPath', value: '/\\0' } } },
    }),
    reason: /not an absolute path/,
  },
  {
    name: 'ReplacePrefixMatch on an Exact route',
    route: gw('h.test', '/a', 'Exact', 'p', 0, {
      filters: { rewrite: { path: { type: 'ReplacePrefixMatch', value: '/b' } } },
    }),
    reason: /without a Prefix match/,
  },
  {
    name: 'a fixed status out of range',
    route: gw('h.test', '/', 'Prefix', '', 0, { fixedStatus: 1000 }),
    reason: /status 1000/,
  },
  {
    name: 'a host with a space',
    route: gw('h .test', '/', 'Prefix', 'p', 0, { method: 'GET' }),
    reason: /not a hostname/,
  },
  {
    name: 'seventeen header matches',
    route: gw('h.test', '/', 'Prefix', 'p', 0, {
      headers: Array.from({ length: 17 }, (_, i) => ({ name: `h${i}`, type: 'Exact' as const, value: 'v' })),
    }),
    reason: /more than 16/,
  },
];

for (const { name, route, reason } of refusals) {
  test(`refused with a typed error naming the route: ${name}`, () => {
    assert.throws(
      () => lines([route]),
      (e: unknown) => e instanceof HaproxyRouteRefusedError && reason.test(e.reason) && e.message.includes('web-route'),
    );
  });
}
