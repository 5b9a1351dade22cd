import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { KubeWatchEvent } from '@portolan/kube-model';
import * as f from '../../testing/fixtures.ts';
import { planEvents, summarize } from '../../testing/summary.ts';
import { Planner } from '../planner.ts';

/** Conflicts for the same host and path across Ingresses and namespaces. */
const CLASS = f.ingressClass('portolan', 'portolan.dev/ingress-controller');
const cfg = f.fleet([{ name: 'c1' }], [f.appliance('lb', 'haproxy')]);
const ing = (
  namespace: string,
  name: string,
  created: number,
  paths: [string, string][],
  o: { defaultBackend?: string; tls?: string; host?: string } = {},
) =>
  f.ingress({
    name,
    namespace,
    created: f.at(created),
    rules: [
      f.rule(
        o.host ?? 'shop.example.com',
        ...paths.map(([p, svc]): [string, string, string, number] => [p, 'Prefix', svc, 80]),
      ),
    ],
    ...(o.defaultBackend ? { defaultBackend: f.backend(o.defaultBackend, 80) } : {}),
    ...(o.tls ? { tls: [{ hosts: [o.host ?? 'shop.example.com'], secretName: o.tls }] } : {}),
  });

const TABLE: { name: string; objects: Record<string, unknown>[]; want: string[] }[] = [
  {
    name: 'same host and path in two namespaces: the oldest wins; the newer is rejected with a reason',
    objects: [ing('team-b', 'shop', 2, [['/', 'b']]), ing('team-a', 'shop', 1, [['/', 'a']])],
    want: [
      'vs default~80 http default owners=c1/team-a/shop,c1/team-b/shop',
      '  shop.example.com/ Prefix -> team-a~a~80 (c1/team-a/shop)',
      'pool team-a~a~80 []',
      'Accepted c1/team-a/shop Planned',
      'Warning c1/team-a/shop HostSharedAcrossNamespaces',
      'Warning c1/team-a/shop ServiceNotFound',
      'Rejected c1/team-b/shop AllRoutesConflict',
      'Warning c1/team-b/shop HostSharedAcrossNamespaces',
      'Warning c1/team-b/shop RouteConflict',
    ],
  },
  {
    name: 'equal creation time: namespace/name order decides',
    objects: [ing('zeta', 'x', 1, [['/', 'z']]), ing('alpha', 'x', 1, [['/', 'a']])],
    want: [
      'vs default~80 http default owners=c1/alpha/x,c1/zeta/x',
      '  shop.example.com/ Prefix -> alpha~a~80 (c1/alpha/x)',
      'pool alpha~a~80 []',
      'Accepted c1/alpha/x Planned',
      'Warning c1/alpha/x HostSharedAcrossNamespaces',
      'Warning c1/alpha/x ServiceNotFound',
      'Rejected c1/zeta/x AllRoutesConflict',
      'Warning c1/zeta/x HostSharedAcrossNamespaces',
      'Warning c1/zeta/x RouteConflict',
    ],
  },
  {
    name: 'paths of one host merge across Ingresses; an Ingress can win some paths and lose others',
    objects: [
      ing('a', 'one', 1, [['/', 'a']]),
      ing('b', 'two', 2, [
        ['/', 'b'],
        ['/api', 'b'],
      ]),
    ],
    want: [
      'vs default~80 http default owners=c1/a/one,c1/b/two',
      '  shop.example.com/api Prefix -> b~b~80 (c1/b/two)',
      '  shop.example.com/ Prefix -> a~a~80 (c1/a/one)',
      'pool a~a~80 []',
      'pool b~b~80 []',
      'Accepted c1/a/one Planned',
      'Warning c1/a/one HostSharedAcrossNamespaces',
      'Warning c1/a/one ServiceNotFound',
      'Accepted c1/b/two Planned',
      'Warning c1/b/two HostSharedAcrossNamespaces',
      'Warning c1/b/two RouteConflict',
      'Warning c1/b/two ServiceNotFound',
    ],
  },
  {
    name: 'two Ingresses asking for the same backend on the same route merge: both accepted',
    objects: [
      ing('a', 'one', 1, [['/', 'web']]),
      ing('a', 'two', 2, [['/', 'web']]),
      f.service('web', [[undefined, 80]], { namespace: 'a' }),
    ],
    want: [
      'vs default~80 http default owners=c1/a/one,c1/a/two',
      '  shop.example.com/ Prefix -> a~web~80 (c1/a/one)',
      'pool a~web~80 []',
      'Accepted c1/a/one Planned',
      'Accepted c1/a/two Planned',
    ],
  },
  {
    name: 'default backends on a shared listener: the oldest wins',
    objects: [
      ing('a', 'one', 1, [['/a', 'a']], { defaultBackend: 'a' }),
      ing('b', 'two', 2, [['/b', 'b']], { defaultBackend: 'b' }),
    ],
    want: [
      'vs default~80 http default owners=c1/a/one,c1/b/two default=a~a~80',
      '  shop.example.com/a Prefix -> a~a~80 (c1/a/one)',
      '  shop.example.com/b Prefix -> b~b~80 (c1/b/two)',
      'pool a~a~80 []',
      'pool b~b~80 []',
      'Accepted c1/a/one Planned',
      'Warning c1/a/one HostSharedAcrossNamespaces',
      'Warning c1/a/one ServiceNotFound',
      'Accepted c1/b/two Planned',
      'Warning c1/b/two DefaultBackendConflict',
      'Warning c1/b/two HostSharedAcrossNamespaces',
      'Warning c1/b/two ServiceNotFound',
    ],
  },
  {
    name: "TLS for one host from two Secrets: the oldest Ingress's certificate serves it and is the listener default",
    objects: [
      ing('b', 'two', 2, [['/b', 'b']], { tls: 'cert-b' }),
      ing('a', 'one', 1, [['/a', 'a']], { tls: 'cert-a' }),
      ing('c', 'three', 3, [['/', 'c']], { tls: 'cert-c', host: 'other.example.com' }),
      f.tlsSecret('cert-a', 'aa'.repeat(32), { namespace: 'a' }),
      f.tlsSecret('cert-b', 'bb'.repeat(32), { namespace: 'b' }),
      f.tlsSecret('cert-c', 'cc'.repeat(32), { namespace: 'c' }),
    ],
    want: [
      'vs default~443 https default owners=c1/a/one,c1/b/two,c1/c/three certs=c1~a~cert-a,c1~c~cert-c',
      '  other.example.com/ Prefix -> c~c~80 (c1/c/three)',
      '  shop.example.com/a Prefix -> a~a~80 (c1/a/one)',
      '  shop.example.com/b Prefix -> b~b~80 (c1/b/two)',
      'vs default~80 http default owners=c1/a/one,c1/b/two,c1/c/three',
      '  other.example.com/ Prefix -> c~c~80 (c1/c/three)',
      '  shop.example.com/a Prefix -> a~a~80 (c1/a/one)',
      '  shop.example.com/b Prefix -> b~b~80 (c1/b/two)',
      'pool a~a~80 []',
      'pool b~b~80 []',
      'pool c~c~80 []',
      'cert c1~a~cert-a aaaaaa hosts=shop.example.com',
      'cert c1~c~cert-c cccccc hosts=other.example.com',
      'Accepted c1/a/one Planned',
      'Warning c1/a/one HostSharedAcrossNamespaces',
      'Warning c1/a/one ServiceNotFound',
      'Accepted c1/b/two Planned',
      'Warning c1/b/two HostSharedAcrossNamespaces',
      'Warning c1/b/two ServiceNotFound',
      'Warning c1/b/two TlsHostConflict',
      'Accepted c1/c/three Planned',
      'Warning c1/c/three ServiceNotFound',
    ],
  },
];

for (const row of TABLE) {
  test(`conflicts: ${row.name}`, () => {
    assert.deepEqual(summarize(planEvents(cfg, f.added('c1', CLASS, ...row.objects))), row.want);
  });
}

test('the loser is told who holds the route', () => {
  const d = planEvents(
    cfg,
    f.added('c1', CLASS, ing('team-a', 'shop', 1, [['/', 'a']]), ing('team-b', 'shop', 2, [['/', 'b']])),
  );
  assert.equal(
    d.conditions.find((c) => c.reason === 'RouteConflict')?.message,
    'shop.example.com/ (Prefix) on listener default~80 is served by the older Ingress team-a/shop in cluster c1',
  );
});

test('property: the winner depends only on (creationTimestamp, namespace, name) — any arrival order, relist or redelivery', () => {
  const contenders = [
    ing('n1', 'x', 3, [
      ['/', 's1'],
      ['/api', 's1'],
    ]),
    ing('n2', 'x', 1, [['/api', 's2']]),
    ing('n3', 'y', 2, [['/', 's3']]),
    ing('n0', 'z', 2, [
      ['/', 's0'],
      ['/static', 's0'],
    ]),
  ];
  const events: KubeWatchEvent[] = f.added('c1', CLASS, ...contenders);
  const expected = summarize(planEvents(cfg, events));
  assert.deepEqual(expected.slice(0, 4), [
    'vs default~80 http default owners=c1/n2/x,c1/n0/z,c1/n3/y,c1/n1/x',
    '  shop.example.com/static Prefix -> n0~s0~80 (c1/n0/z)',
    '  shop.example.com/api Prefix -> n2~s2~80 (c1/n2/x)',
    '  shop.example.com/ Prefix -> n0~s0~80 (c1/n0/z)',
  ]);
  fc.assert(
    fc.property(
      fc.shuffledSubarray(events, { minLength: events.length }),
      fc.array(fc.nat(events.length - 1), { maxLength: 6 }),
      fc.boolean(),
      (order, repeats, planBetween) => {
        const p = new Planner(cfg);
        for (const e of order) {
          p.applyEvent(e);
          if (planBetween) p.planDirty();
        }
        for (const i of repeats) p.applyEvent(order[i]!);
        p.applyListMarker({
          cluster: 'c1',
          kind: 'Ingress',
          generation: 1,
          resourceVersion: '999999',
          chunkIndex: 0,
          chunkCount: 1,
          keys: ['n0/z', 'n1/x', 'n2/x', 'n3/y'],
        });
        p.planDirty();
        assert.deepEqual(summarize(p.desiredState('lb')!), expected);
      },
    ),
    { numRuns: 150 },
  );
});
