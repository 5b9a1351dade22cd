import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as f from '../../testing/fixtures.ts';
import { planEvents } from '../../testing/summary.ts';
import { matchRequest } from '@portolan/routing';
import { normalizePath } from '@portolan/routing';

/**
 * Every row of the path-matching examples table in the Kubernetes Ingress documentation
 * (concepts/services-networking/ingress, "Examples"), planned end to end: the Ingress is planned, then the
 * reference matcher is asked where the request goes. `want` is the index of the rule path that must serve it,
 * or 'default' (the Ingress's defaultBackend: the table's "No").
 */
const TABLE: { kind: string; paths: [string, string][]; requests: string[]; want: number | 'default' }[] = [
  { kind: 'Prefix', paths: [['/', 'Prefix']], requests: ['/', '/anything', '/a/b/c'], want: 0 },
  { kind: 'Exact', paths: [['/foo', 'Exact']], requests: ['/foo'], want: 0 },
  { kind: 'Exact', paths: [['/foo', 'Exact']], requests: ['/bar'], want: 'default' },
  { kind: 'Exact', paths: [['/foo', 'Exact']], requests: ['/foo/'], want: 'default' },
  { kind: 'Exact', paths: [['/foo/', 'Exact']], requests: ['/foo'], want: 'default' },
  { kind: 'Prefix', paths: [['/foo', 'Prefix']], requests: ['/foo', '/foo/'], want: 0 },
  { kind: 'Prefix', paths: [['/foo/', 'Prefix']], requests: ['/foo', '/foo/'], want: 0 },
  { kind: 'Prefix', paths: [['/aaa/bb', 'Prefix']], requests: ['/aaa/bbb'], want: 'default' },
  { kind: 'Prefix', paths: [['/aaa/bbb', 'Prefix']], requests: ['/aaa/bbb'], want: 0 },
  { kind: 'Prefix (ignores trailing slash)', paths: [['/aaa/bbb/', 'Prefix']], requests: ['/aaa/bbb'], want: 0 },
  { kind: 'Prefix (matches trailing slash)', paths: [['/aaa/bbb', 'Prefix']], requests: ['/aaa/bbb/'], want: 0 },
  { kind: 'Prefix (matches subpath)', paths: [['/aaa/bbb', 'Prefix']], requests: ['/aaa/bbb/ccc'], want: 0 },
  { kind: 'Prefix (not a string prefix)', paths: [['/aaa/bbb', 'Prefix']], requests: ['/aaa/bbbxyz'], want: 'default' },
  {
    kind: 'Prefix (matches /aaa)',
    paths: [
      ['/', 'Prefix'],
      ['/aaa', 'Prefix'],
    ],
    requests: ['/aaa/ccc'],
    want: 1,
  },
  {
    kind: 'Prefix (matches /aaa/bbb)',
    paths: [
      ['/', 'Prefix'],
      ['/aaa', 'Prefix'],
      ['/aaa/bbb', 'Prefix'],
    ],
    requests: ['/aaa/bbb'],
    want: 2,
  },
  {
    kind: 'Prefix (matches /)',
    paths: [
      ['/', 'Prefix'],
      ['/aaa', 'Prefix'],
      ['/aaa/bbb', 'Prefix'],
    ],
    requests: ['/ccc'],
    want: 0,
  },
  { kind: 'Prefix (uses default backend)', paths: [['/aaa', 'Prefix']], requests: ['/ccc'], want: 'default' },
  {
    kind: 'Mixed (prefers Exact)',
    paths: [
      ['/foo', 'Prefix'],
      ['/foo', 'Exact'],
    ],
    requests: ['/foo'],
    want: 1,
  },
  // Portolan's documented choice: ImplementationSpecific is planned as Prefix.
  {
    kind: 'ImplementationSpecific = Prefix',
    paths: [['/foo', 'ImplementationSpecific']],
    requests: ['/foo/bar', '/foo'],
    want: 0,
  },
  {
    kind: 'ImplementationSpecific = Prefix (element-wise)',
    paths: [['/foo', 'ImplementationSpecific']],
    requests: ['/foobar'],
    want: 'default',
  },
];

function plannedListener(paths: [string, string][], withDefault: boolean) {
  const cfg = f.fleet([{ name: 'c1' }], [f.appliance('lb', 'haproxy')]);
  const desired = planEvents(cfg, [
    ...f.added(
      'c1',
      f.ingressClass('portolan', 'portolan.dev/ingress-controller'),
      f.ingress({
        name: 'paths',
        rules: [
          f.rule('example.com', ...paths.map(([p, t], i): [string, string, string, number] => [p, t, `s${i}`, 80])),
        ],
        ...(withDefault ? { defaultBackend: f.backend('dflt', 80) } : {}),
      }),
    ),
  ]);
  const vs = desired.virtualServices.find((v) => v.name === 'default~80');
  assert.ok(vs, 'the plain-HTTP listener is planned');
  return vs;
}

for (const row of TABLE) {
  for (const request of row.requests) {
    test(`Kubernetes path table: ${row.kind} ${row.paths.map((p) => `${p[0]}(${p[1]})`).join(', ')} × ${request} → ${row.want === 'default' ? 'default backend' : row.paths[row.want]![0]}`, () => {
      const vs = plannedListener(row.paths, true);
      const outcome = matchRequest(vs, 'example.com', request);
      assert.equal(outcome.kind, 'pool');
      assert.equal(
        outcome.kind === 'pool' ? outcome.pool : null,
        row.want === 'default' ? 'default~dflt~80' : `default~s${row.want}~80`,
      );
    });
  }
}

test('without a defaultBackend, a request no path matches is answered 404', () => {
  const vs = plannedListener([['/aaa', 'Prefix']], false);
  assert.deepEqual(matchRequest(vs, 'example.com', '/ccc'), { kind: 'not-found' });
  assert.equal(vs.defaultPool, null);
});

test('Exact and Prefix of the same path are two routes; Exact is listed first (drivers may match in order)', () => {
  const vs = plannedListener(
    [
      ['/foo', 'Prefix'],
      ['/foo', 'Exact'],
      ['/foo/bar', 'Prefix'],
    ],
    false,
  );
  assert.deepEqual(
    vs.routes.map((r) => `${r.path} ${r.match}`),
    ['/foo/bar Prefix', '/foo Exact', '/foo Prefix'],
  );
});

test('invalid paths and path types are refused with a reason', () => {
  assert.deepEqual(normalizePath('foo', 'Prefix'), {
    ok: false,
    reason: 'InvalidPath',
    message: 'path "foo" must start with "/"',
  });
  assert.equal(normalizePath('/a b', 'Exact').ok, false);
  assert.equal(normalizePath('/a?b', 'Prefix').ok, false);
  assert.equal(normalizePath('/a#b', 'Prefix').ok, false);
  assert.equal(normalizePath('/é', 'Prefix').ok, false);
  assert.deepEqual(normalizePath('/x', 'Regex'), {
    ok: false,
    reason: 'InvalidPathType',
    message: 'pathType "Regex" is not Exact, Prefix or ImplementationSpecific',
  });
  assert.deepEqual(normalizePath(undefined, undefined), { ok: true, path: '/', match: 'Prefix' });
  assert.deepEqual(normalizePath('/foo//', 'Prefix'), { ok: true, path: '/foo', match: 'Prefix' });
  assert.deepEqual(normalizePath('/foo/', 'Exact'), { ok: true, path: '/foo/', match: 'Exact' });
});
