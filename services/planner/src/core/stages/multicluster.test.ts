// Several clusters behind one appliance, and the scope rules that decide which objects an appliance plans.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApplianceConfig, ClusterConfig } from '@portolan/fleet-config';
import * as f from '../../testing/fixtures.ts';
import { planEvents, summarize } from '../../testing/summary.ts';
import { Planner } from '../planner.ts';

const CLASS = f.ingressClass('portolan', 'portolan.dev/ingress-controller');
const haproxy = f.fleet([{ name: 'c1' }], [f.appliance('lb', 'haproxy')]);
const web = (
  o: { tls?: { hosts?: string[]; secretName?: string }[]; name?: string; created?: number; host?: string } = {},
) =>
  f.ingress({
    name: o.name ?? 'web',
    created: f.at(o.created ?? 0),
    rules: [f.rule(o.host ?? 'a.example.com', ['/', 'Prefix', 'web', 80])],
    ...(o.tls ? { tls: o.tls } : {}),
  });

const VTM_CLASS = f.ingressClass('vtm', 'pulsesecure.net/vtm-ingress-controller');

const twoClusters = (
  appliance: Partial<ApplianceConfig> = {},
  clusters: Partial<ClusterConfig>[] = [
    { name: 'east', weight: 1 },
    { name: 'west', weight: 3 },
  ],
) => f.fleet(clusters, [{ ...f.appliance('lb', 'haproxy'), ...appliance }]);

test("multi-cluster: the same host in two clusters is one route whose pool holds both clusters' members, weighted per cluster", () => {
  const events = [
    ...f.added(
      'east',
      CLASS,
      web({ created: 1 }),
      f.service('web', [[undefined, 80]]),
      f.slice('web-e', 'web', undefined, 8080, [['10.1.0.1'], ['10.1.0.2']]),
    ),
    ...f.added(
      'west',
      CLASS,
      web({ created: 2 }),
      f.service('web', [[undefined, 80]]),
      f.slice('web-w', 'web', undefined, 8080, [['10.2.0.1']]),
    ),
  ];
  assert.deepEqual(summarize(planEvents(twoClusters(), events)), [
    'vs default~80 http default owners=east/default/web,west/default/web',
    '  a.example.com/ Prefix -> default~web~80 (east/default/web)',
    'pool default~web~80 [10.1.0.1:8080@east 10.1.0.2:8080@east 10.2.0.1:8080*3@west]',
    'Accepted east/default/web Planned',
    'Accepted west/default/web Planned',
  ]);
  const pool = planEvents(twoClusters(), events).pools[0]!;
  assert.deepEqual(
    pool.services.map((s) => s.cluster),
    ['east', 'west'],
  );
});

test('multi-cluster: a different backend for the same host in the second cluster is a conflict the newer loses', () => {
  const events = [
    ...f.added('east', CLASS, web({ created: 1 }), f.service('web', [[undefined, 80]])),
    ...f.added(
      'west',
      CLASS,
      f.ingress({ name: 'web', created: f.at(2), rules: [f.rule('a.example.com', ['/', 'Prefix', 'other', 80])] }),
      f.service('other', [[undefined, 80]]),
    ),
  ];
  const lines = summarize(planEvents(twoClusters(), events));
  assert.deepEqual(
    lines.filter((l) => !l.startsWith('vs')),
    [
      '  a.example.com/ Prefix -> default~web~80 (east/default/web)',
      'pool default~web~80 []',
      'Accepted east/default/web Planned',
      'Rejected west/default/web AllRoutesConflict',
      'Warning west/default/web RouteConflict',
    ],
  );
});

test('multi-cluster: an appliance limited to some clusters ignores the others', () => {
  const events = [
    ...f.added('east', CLASS, web({ created: 1 })),
    ...f.added('west', CLASS, web({ created: 0, host: 'w.example.com' })),
  ];
  const lines = summarize(planEvents(twoClusters({ clusters: ['east'] }), events));
  assert.ok(lines.every((l) => !l.includes('west')));
  assert.ok(lines.includes('Accepted east/default/web Planned'));
});

test('namespace scope: one namespace, a list, or everything but kube-system', () => {
  const objects = (cl: string) =>
    f.added(
      cl,
      CLASS,
      f.ingress({ name: 'a', namespace: 'kube-system', rules: [f.rule('k.example.com', ['/', 'Prefix', 's', 80])] }),
      f.ingress({ name: 'b', namespace: 'shop', rules: [f.rule('s.example.com', ['/', 'Prefix', 's', 80])] }),
      f.ingress({ name: 'c', namespace: 'blog', rules: [f.rule('b.example.com', ['/', 'Prefix', 's', 80])] }),
    );
  const accepted = (namespaces: ClusterConfig['namespaces']) =>
    summarize(planEvents(f.fleet([{ name: 'c1', namespaces }], [f.appliance('lb', 'haproxy')]), objects('c1')))
      .filter((l) => l.startsWith('Accepted'))
      .map((l) => l.split(' ')[1]);
  assert.deepEqual(accepted('all-except-kube-system'), ['c1/blog/c', 'c1/shop/b']);
  assert.deepEqual(accepted('shop'), ['c1/shop/b']);
  assert.deepEqual(accepted(['kube-system', 'blog']), ['c1/blog/c', 'c1/kube-system/a']);
});

test('default IngressClass: an Ingress without a class is ours only when the default class has our controller', () => {
  const classless = f.ingress({
    name: 'x',
    className: null,
    rules: [f.rule('x.example.com', ['/', 'Prefix', 's', 80])],
  });
  const ours = summarize(
    planEvents(haproxy, f.added('c1', f.ingressClass('portolan', 'portolan.dev/ingress-controller', true), classless)),
  );
  assert.ok(ours.includes('Accepted c1/default/x Planned'));
  const theirs = summarize(
    planEvents(
      haproxy,
      f.added(
        'c1',
        f.ingressClass('portolan', 'portolan.dev/ingress-controller'),
        f.ingressClass('nginx', 'k8s.io/ingress-nginx', true),
        classless,
      ),
    ),
  );
  assert.deepEqual(theirs, []);
  const p = new Planner(haproxy);
  for (const e of f.added('c1', f.ingressClass('portolan', 'portolan.dev/ingress-controller'), classless))
    p.applyEvent(e);
  p.planDirty();
  assert.deepEqual(summarize(p.desiredState('lb')!), []);
  for (const e of f.added('c1', f.ingressClass('portolan', 'portolan.dev/ingress-controller', true)))
    p.applyEvent({ ...e, type: 'MODIFIED' });
  assert.ok(
    summarize(p.planDirty()[0]!.desired).includes('Accepted c1/default/x Planned'),
    'marking a class default re-plans classless Ingresses',
  );
});

test('an Ingress leaving a shared address for the default listener, in the same plan as its copy in another cluster arriving there, serves from both clusters', () => {
  // Found by the incremental-equals-recompute property: the default listener was re-allocated first, then the shared
  // address's group dropped the outcome the default listener had just given, and the Ingress was rejected.
  const fleet = f.fleet([{ name: 'c1' }, { name: 'c2' }], [f.appliance('v', 'vtm')]);
  const world = (address: string): Record<string, unknown>[] => [
    VTM_CLASS,
    f.service('web', [[undefined, 80]]),
    f.slice('web-0', 'web', undefined, 8080, [[address, true, true, false, 'n1']]),
  ];
  const copy = (annotations: Record<string, string>) =>
    f.ingress({ name: 'web', className: 'vtm', annotations, defaultBackend: f.backend('web', 80) });
  const p = new Planner(fleet);
  for (const e of [
    ...f.added('c1', ...world('10.1.0.1')),
    ...f.added('c2', ...world('10.2.0.1'), copy({ 'vtm.pulsesecure.net/shared-ip-address': '10.0.0.5' })),
  ])
    p.applyEvent(e);
  p.planDirty();
  for (const e of [...f.added('c1', copy({})), ...f.added('c2', copy({}))]) p.applyEvent(e);
  p.planDirty();
  const lines = summarize(p.desiredState('v')!);
  assert.deepEqual(
    lines.filter((l) => /^(Accepted|Rejected|pool)/.test(l)),
    [
      'pool default~web~80 monitor=tcp [10.1.0.1:8080@c1 10.2.0.1:8080@c2]',
      'Accepted c1/default/web Planned',
      'Accepted c2/default/web Planned',
    ],
  );
});
