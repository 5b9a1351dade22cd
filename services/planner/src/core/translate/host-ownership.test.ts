import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as f from '../../testing/fixtures.ts';
import { planEvents, summarize } from '../../testing/summary.ts';
import { allowedNamespaces, applyHostOwnership, type HostOwnership } from './host-ownership.ts';

const claim = (namespace: string, order: string, host = 'demo.local') => ({
  order,
  ingressKey: `${namespace}/${order}`,
  namespace,
  app: `${namespace}/app${order}`,
  host,
});

test('ownership table: who may serve a host, and who is told it is shared', () => {
  const allow: HostOwnership = {
    mode: 'allow-list',
    hosts: new Map([
      ['demo.local', ['demo']],
      ['*.shop.example.com', ['shop', 'shop-canary']],
      ['*.example.com', ['web']],
    ]),
  };
  const rows: {
    name: string;
    policy: HostOwnership;
    claims: ReturnType<typeof claim>[];
    eligible: string[];
    notes: string[];
  }[] = [
    {
      name: 'shared: both serve, both are told',
      policy: { mode: 'shared' },
      claims: [claim('demo', '1'), claim('p2', '2')],
      eligible: ['demo/1', 'p2/2'],
      notes: ['demo/1 HostSharedAcrossNamespaces', 'p2/2 HostSharedAcrossNamespaces'],
    },
    {
      name: 'shared, one namespace: nothing to say',
      policy: { mode: 'shared' },
      claims: [claim('demo', '1'), claim('demo', '2')],
      eligible: ['demo/1', 'demo/2'],
      notes: [],
    },
    {
      name: 'first-namespace: the older namespace keeps it whatever the arrival order',
      policy: { mode: 'first-namespace' },
      claims: [claim('p2', '2'), claim('demo', '1'), claim('demo', '3')],
      eligible: ['demo/1', 'demo/3'],
      notes: ['p2/2 HostOwnedByNamespace'],
    },
    {
      name: 'allow-list: only the listed namespace',
      policy: allow,
      claims: [claim('p2', '1'), claim('demo', '2')],
      eligible: ['demo/2'],
      notes: ['p2/1 HostNotAllowed'],
    },
    {
      name: 'allow-list: a suffix lists two namespaces, both serve and are told',
      policy: allow,
      claims: [
        claim('shop', '1', 'a.shop.example.com'),
        claim('shop-canary', '2', 'a.shop.example.com'),
        claim('web', '3', 'a.shop.example.com'),
      ],
      eligible: ['shop/1', 'shop-canary/2'],
      notes: ['web/3 HostNotAllowed', 'shop/1 HostSharedAcrossNamespaces', 'shop-canary/2 HostSharedAcrossNamespaces'],
    },
    {
      name: 'allow-list: an unlisted host falls back to first-namespace',
      policy: allow,
      claims: [claim('x', '1', 'other.org'), claim('y', '2', 'other.org')],
      eligible: ['x/1'],
      notes: ['y/2 HostOwnedByNamespace'],
    },
  ];
  for (const row of rows) {
    const r = applyHostOwnership(row.claims, row.policy);
    assert.deepEqual(r.eligible.map((c) => c.ingressKey).sort(), [...row.eligible].sort(), row.name);
    assert.deepEqual(
      r.notes.map((n) => `${n.ingressKey} ${n.issue.reason}`),
      row.notes,
      row.name,
    );
  }
  assert.deepEqual(
    allowedNamespaces(
      new Map([
        ['*.example.com', ['a']],
        ['*.b.example.com', ['b']],
      ]),
      'x.b.example.com',
    ),
    ['b'],
    'the longest suffix wins',
  );
  assert.equal(
    allowedNamespaces(new Map([['*.example.com', ['a']]]), 'example.com'),
    null,
    'a suffix does not cover the bare domain',
  );
});

const CLASS = f.ingressClass('portolan', 'portolan.dev/ingress-controller');
const demo = f.ingress({
  name: 'web',
  namespace: 'demo',
  created: f.at(0),
  rules: [f.rule('demo.local', ['/', 'Prefix', 'web', 80], ['/api', 'Prefix', 'web', 80])],
});
const hijack = f.ingress({
  name: 'grab',
  namespace: 'p2',
  created: f.at(5),
  rules: [f.rule('demo.local', ['/hijack', 'Prefix', 'evil', 80], ['/api', 'Exact', 'evil', 80])],
});
const objects = [
  CLASS,
  f.service('web', [[undefined, 80]], { namespace: 'demo' }),
  f.service('evil', [[undefined, 80]], { namespace: 'p2' }),
  demo,
  hijack,
];

test("shared (the default): the other namespace's routes are served, and both Ingresses carry a Warning", () => {
  const d = planEvents(f.fleet([{ name: 'c1' }], [f.appliance('lb', 'haproxy')]), f.added('c1', ...objects));
  const lines = summarize(d);
  assert.ok(
    lines.some((l) => l.includes('demo.local/hijack Prefix -> p2~evil~80')),
    lines.join('\n'),
  );
  assert.ok(lines.includes('Warning c1/demo/web HostSharedAcrossNamespaces'));
  assert.ok(lines.includes('Warning c1/p2/grab HostSharedAcrossNamespaces'));
  assert.match(
    d.conditions.find((c) => c.object.namespace === 'p2' && c.reason === 'HostSharedAcrossNamespaces')!.message,
    /first claimed by namespace demo \(Ingress c1\/demo\/web\)|first claimed by namespace demo/,
  );
});

test('first-namespace: the newer namespace is refused on the host with a condition; the owner keeps /api', () => {
  const d = planEvents(
    f.fleet([{ name: 'c1' }], [f.appliance('lb', 'haproxy', { hostOwnership: 'first-namespace' })]),
    f.added('c1', ...objects),
  );
  const lines = summarize(d);
  assert.ok(!lines.some((l) => l.includes('p2~evil')), lines.join('\n'));
  assert.ok(lines.includes('Rejected c1/p2/grab AllRoutesConflict'));
  assert.ok(lines.includes('Warning c1/p2/grab HostOwnedByNamespace'));
  assert.ok(!lines.some((l) => l.includes('HostShared')));
});

test('allow-list: only the namespaces the fleet config names may serve a host', () => {
  const fleet = f.fleet(
    [{ name: 'c1' }],
    [f.appliance('lb', 'haproxy', { hostOwnership: 'allow-list', hostAllowList: { 'demo.local': ['p2'] } })],
  );
  const lines = summarize(planEvents(fleet, f.added('c1', ...objects)));
  assert.ok(lines.includes('Warning c1/demo/web HostNotAllowed'), lines.join('\n'));
  assert.ok(lines.some((l) => l.includes('demo.local/hijack Prefix -> p2~evil~80')));
});
