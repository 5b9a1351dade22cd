import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as f from '../../testing/fixtures.ts';
import { planEvents } from '../../testing/summary.ts';
import { canonicalizeHost, hostMatches, wildcardsOf } from '@portolan/routing';
import { matchRequest } from '@portolan/routing';

/** Look-alike and malformed hosts: canonical form, or the reason a host is refused. */
const HOSTS: { raw: string; want: string | { reason: string } }[] = [
  { raw: 'Shop.EXAMPLE.com', want: 'shop.example.com' },
  { raw: 'shop.example.com.', want: 'shop.example.com' },
  { raw: 'bücher.example', want: 'xn--bcher-kva.example' },
  { raw: 'xn--bcher-kva.example', want: 'xn--bcher-kva.example' },
  { raw: 'BÜCHER.example.', want: 'xn--bcher-kva.example' },
  { raw: '*.Example.com', want: '*.example.com' },
  { raw: '*.bücher.example', want: '*.xn--bcher-kva.example' },
  { raw: '日本語.jp', want: 'xn--wgv71a119e.jp' },
  { raw: 'ｅｘａｍｐｌｅ.com', want: 'example.com' },
  { raw: '', want: '' },
  { raw: '10.0.0.1', want: { reason: 'HostIsIPAddress' } },
  { raw: '0x7f.1', want: { reason: 'HostIsIPAddress' } },
  { raw: '[::1]', want: { reason: 'InvalidHost' } },
  { raw: '*.*.example.com', want: { reason: 'InvalidWildcard' } },
  { raw: 'a.*.example.com', want: { reason: 'InvalidWildcard' } },
  { raw: '*', want: { reason: 'InvalidWildcard' } },
  { raw: 'foo*.example.com', want: { reason: 'InvalidWildcard' } },
  { raw: 'pаypal.com', want: { reason: 'MixedScriptHost' } },
  { raw: 'xn--pypal-4ve.com', want: { reason: 'MixedScriptHost' } },
  { raw: 'example.com:8080', want: { reason: 'InvalidHost' } },
  { raw: 'user@example.com', want: { reason: 'InvalidHost' } },
  { raw: 'exa mple.com', want: { reason: 'InvalidHost' } },
  { raw: 'under_score.example.com', want: { reason: 'InvalidHost' } },
  { raw: '-lead.example.com', want: { reason: 'InvalidHost' } },
  { raw: `${'a'.repeat(64)}.example.com`, want: { reason: 'InvalidHost' } },
  { raw: 'example..com', want: { reason: 'InvalidHost' } },
];

for (const { raw, want } of HOSTS) {
  test(`host ${JSON.stringify(raw)} → ${typeof want === 'string' ? JSON.stringify(want) : want.reason}`, () => {
    const r = canonicalizeHost(raw);
    if (typeof want === 'string') assert.deepEqual(r, { ok: true, host: want });
    else {
      assert.equal(r.ok, false);
      assert.equal(r.ok ? null : r.reason, want.reason);
    }
  });
}

test('hostname wildcard table of the Kubernetes docs: a wildcard covers exactly one label', () => {
  assert.equal(hostMatches('*.foo.com', 'bar.foo.com'), true);
  assert.equal(hostMatches('*.foo.com', 'baz.bar.foo.com'), false);
  assert.equal(hostMatches('*.foo.com', 'foo.com'), false);
});

test('Gateway API wildcards cover any number of labels, never the bare suffix; candidates longest suffix first', () => {
  assert.equal(hostMatches('*.foo.com', 'bar.foo.com', 'any'), true);
  assert.equal(hostMatches('*.foo.com', 'baz.bar.foo.com', 'any'), true);
  assert.equal(hostMatches('*.foo.com', 'foo.com', 'any'), false);
  assert.equal(hostMatches('*.foo.com', 'xfoo.com', 'any'), false);
  assert.deepEqual(wildcardsOf('a.b.foo.com', 'any'), ['*.b.foo.com', '*.foo.com', '*.com']);
  assert.deepEqual(wildcardsOf('a.b.foo.com'), ['*.b.foo.com']);
  assert.deepEqual(wildcardsOf('localhost', 'any'), []);
});

test('IDN and punycode spellings of one host are one route, so they conflict instead of both being served', () => {
  const cfg = f.fleet([{ name: 'c1' }], [f.appliance('lb', 'haproxy')]);
  const d = planEvents(cfg, [
    ...f.added(
      'c1',
      f.ingressClass('portolan', 'portolan.dev/ingress-controller'),
      f.ingress({ name: 'idn', created: f.at(1), rules: [f.rule('BÜCHER.example.', ['/', 'Prefix', 'a', 80])] }),
      f.ingress({ name: 'puny', created: f.at(2), rules: [f.rule('xn--bcher-kva.example', ['/', 'Prefix', 'b', 80])] }),
    ),
  ]);
  const vs = d.virtualServices[0]!;
  assert.deepEqual(
    vs.routes.map((r) => [r.host, r.pool]),
    [['xn--bcher-kva.example', 'default~a~80']],
  );
  assert.deepEqual(matchRequest(vs, 'xn--bcher-kva.example', '/'), {
    kind: 'pool',
    pool: 'default~a~80',
    route: vs.routes[0],
  });
  assert.ok(d.conditions.some((c) => c.object.name === 'puny' && c.reason === 'RouteConflict'));
});

test('wildcard routes planned end to end follow the table, and an exact host wins over its wildcard', () => {
  const cfg = f.fleet([{ name: 'c1' }], [f.appliance('lb', 'haproxy')]);
  const d = planEvents(cfg, [
    ...f.added(
      'c1',
      f.ingressClass('portolan', 'portolan.dev/ingress-controller'),
      f.ingress({
        name: 'wild',
        rules: [
          f.rule('*.foo.com', ['/', 'Prefix', 'wild', 80]),
          f.rule('exact.foo.com', ['/', 'Prefix', 'exact', 80]),
        ],
      }),
    ),
  ]);
  const vs = d.virtualServices[0]!;
  const poolOf = (host: string): string | null => {
    const o = matchRequest(vs, host, '/');
    return o.kind === 'pool' ? o.pool : null;
  };
  assert.equal(poolOf('bar.foo.com'), 'default~wild~80');
  assert.equal(poolOf('BAR.foo.com:8080'), 'default~wild~80');
  assert.equal(poolOf('baz.bar.foo.com'), null);
  assert.equal(poolOf('foo.com'), null);
  assert.equal(poolOf('exact.foo.com'), 'default~exact~80');
});
