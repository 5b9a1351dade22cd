import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RenderRefusedError } from '@portolan/appliance-driver';
import type { Route } from '@portolan/desired-state';
import { desiredState, member, pool, ref, route, virtualService } from '../testing/desired-builder.ts';
import { renderVendorState } from './render-vendor-state.ts';
import { renderRouteRules } from './route-rules.ts';

const hr = (name: string, path: string, extra: Partial<Route> = {}): Route => ({
  ...route('a.example.com', path, 'Prefix', name),
  source: ref('HTTPRoute', 'default', name),
  ...extra,
});
const header = (name: string, value: string, type: 'Exact' | 'Regex' = 'Exact') => ({ name, type, value });

function render(routes: readonly Route[]) {
  const pools = [...new Set(routes.map((r) => r.pool))].map((p) => pool(p, [member('10.0.0.1', 80)]));
  return renderVendorState(desiredState({ virtualServices: [virtualService('v', routes)], pools }), {
    appliance: 'lm1',
    defaultAddress: null,
  });
}

/** The refusal a render throws, or null. */
function refusal(routes: readonly Route[]): RenderRefusedError | null {
  try {
    render(routes);
    return null;
  } catch (error) {
    if (error instanceof RenderRefusedError) return error;
    throw error;
  }
}

test('conditions: a chain of flags per condition set, shared by routes with equal conditions', () => {
  const routes = [
    hr('a', '/x', { headers: [header('X-A', '1'), header('x-a', 'ignored'), header('X-B', '2')], method: 'GET' }),
    hr('b', '/y', { headers: [header('X-A', '1'), header('X-B', '2')], method: 'GET' }),
  ];
  const out = renderRouteRules('lm1', 'v', routes, ['a', 'b'], 'one');
  const pre = out.preRules.map((n) => out.rules.find((r) => r.name === n));
  assert.deepEqual(
    pre.map((r) => [r?.header, r?.pattern, r?.onlyOnFlag ?? 0, r?.setOnMatch]),
    [
      ['X-A', '/^1$/', 0, 1],
      ['X-B', '/^2$/', 1, 2],
      ['method', '/^GET$/', 2, 3],
    ],
    'only the first match of a header name counts; the two routes share one chain (paths do not overlap)',
  );
  const url = out.urlRules.map((n) => out.rules.find((r) => r.name === n));
  assert.deepEqual(
    url.map((r) => [r?.onlyOnFlag, r?.onlyOnNoFlag]),
    [
      [3, undefined],
      [3, undefined],
    ],
  );
});

test('an earlier conditioned route excludes a later one only through a "taken" flag, never by lookahead', () => {
  const routes = [hr('a', '/x', { headers: [header('X-A', '1')] }), hr('b', '/x', { method: 'POST' }), hr('c', '/')];
  const out = renderRouteRules('lm1', 'v', routes, ['a', 'b', 'c'], 'one');
  const url = out.urlRules.map((n) => out.rules.find((r) => r.name === n));
  assert.equal(url[2]?.pattern.includes('(?!'), false, 'route c has no lookahead for the conditioned a and b');
  assert.deepEqual(
    url.map((r) => [r?.onlyOnFlag, r?.onlyOnNoFlag]),
    [
      [1, undefined],
      [2, 3],
      [undefined, 4],
    ],
  );
  const taken = out.preRules.map((n) => out.rules.find((r) => r.name === n)).filter((r) => r?.setOnMatch === 4);
  assert.deepEqual(
    taken.map((r) => [r?.pattern.startsWith('/^(?i:a\\.example\\.com)'), r?.onlyOnFlag]),
    [
      [true, 1],
      [true, 2],
    ],
  );
});

test('nine flags per virtual service: the first route needing a tenth is refused, by name', () => {
  const routes = Array.from({ length: 10 }, (_, i) => hr(`r${i}`, `/p${i}`, { headers: [header('X-N', `${i}`)] }));
  const error = refusal(routes);
  assert.ok(error !== null);
  assert.equal(error.source.name, 'r9');
  assert.match(error.message, /r9: needs more than the 9 content-rule flags/);
  assert.equal(refusal(routes.slice(0, 9)), null);
});

test('hostile values: quotes, & and / escaped; control characters, odd names and non-POSIX regexes refused', () => {
  const out = renderRouteRules('lm1', 'v', [hr('a', '/', { headers: [header('X-A', 'a/b"&c.d')] })], ['a'], 'one');
  assert.equal(out.rules[0]?.pattern, '/^a\\/b"&c\\.d$/');
  const regex = renderRouteRules(
    'lm1',
    'v',
    [hr('a', '/', { headers: [header('X-A', 'a/[/b]+', 'Regex')] })],
    ['a'],
    'one',
  );
  assert.equal(regex.rules[0]?.pattern, '/^(?:a\\/[\\/b]+)$/');
  const refused: [string, Partial<Route>, RegExp][] = [
    ['newline in a value', { headers: [header('X-A', 'a\nb')] }, /control character/],
    [
      'newline in a set value',
      { filters: { requestHeaders: { set: [{ name: 'X-A', value: 'a\r\nX-B: 1' }], add: [], remove: [] } } },
      /control character/,
    ],
    ['space in a name', { headers: [header('X A', 'a')] }, /not a token/],
    ['special name', { filters: { requestHeaders: { set: [], add: [], remove: ['method'] } } }, /read specially/],
    ['PCRE escape', { headers: [header('X-A', '\\d+', 'Regex')] }, /not a POSIX escape/],
    ['group escape', { headers: [header('X-A', 'a)|(b', 'Regex')] }, /unbalanced/],
    ['inline flag', { headers: [header('X-A', '(?i)a', 'Regex')] }, /not POSIX/],
    ['odd method', { method: 'BREW' }, /method "BREW"/],
    [
      'regex-like name removed',
      { filters: { responseHeaders: { set: [], add: [], remove: ['X.A'] } } },
      /removed exactly/,
    ],
    ['query match', { queryParams: [header('q', '1')] }, /query parameter match/],
    ['regex path', { match: 'Regex' }, /RegularExpression path/],
    ['redirect', { filters: { redirect: { statusCode: 302, hostname: 'x' } } }, /RequestRedirect/],
    ['rewrite', { filters: { rewrite: { hostname: 'x' } } }, /URLRewrite/],
    ['long value', { headers: [header('X-A', 'x'.repeat(260))] }, /250 characters/],
  ];
  for (const [what, extra, reason] of refused) {
    const error = refusal([hr('ok', '/ok'), hr('bad', '/', extra)]);
    assert.ok(error !== null, what);
    assert.equal(error.source.name, 'bad', what);
    assert.match(error.reason, reason, what);
  }
});

test('header edits: set is delete then add, add appends, remove deletes; a route with edits gets its own SubVS', () => {
  const edits = { set: [{ name: 'X-S', value: 's' }], add: [{ name: 'X-A', value: 'a' }], remove: ['X-R'] };
  const state = render([hr('p', '/e', { filters: { requestHeaders: edits } }), hr('p', '/plain')]);
  const subs = state.virtualServices[0]?.subVss ?? [];
  assert.equal(subs.length, 2, 'same pool, different edits: two SubVSs');
  const edited = subs.find((s) => s.requestRules !== undefined);
  const rules = (edited?.requestRules ?? []).map((n) => state.rules.find((r) => r.name === n));
  assert.deepEqual(
    rules.map((r) => [r?.type, r?.pattern, r?.header ?? '', r?.replacement ?? '']),
    [
      [2, 'X-S', '', ''],
      [1, '', 'X-S', 's'],
      [1, '', 'X-A', 'a'],
      [2, 'X-R', '', ''],
    ],
  );
  assert.equal(edited?.responseRules, undefined);
});
