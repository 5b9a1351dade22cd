import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diffDesiredStates } from './desired-diff.ts';
import { listDesiredObjects } from './desired-objects.ts';
import { desired, pool, route, shop, vs } from '../testing/desired-fixture.ts';

const summary = (a: ReturnType<typeof shop>, b: ReturnType<typeof shop>): string[] =>
  diffDesiredStates(a, b).map((d) => `${d.change} ${d.key}`);

test('diffDesiredStates: object-level changes, table', () => {
  const cases: { name: string; a: ReturnType<typeof shop>; b: ReturnType<typeof shop>; want: string[] }[] = [
    { name: 'equal states', a: shop(), b: shop(), want: [] },
    {
      name: 'scale up adds members only',
      a: shop([1, 2]),
      b: shop([1, 2, 3]),
      want: ['added member/shop~web~80/10.0.0.3:8080'],
    },
    {
      name: 'scale down removes members',
      a: shop([1, 2, 3]),
      b: shop([1]),
      want: ['removed member/shop~web~80/10.0.0.2:8080', 'removed member/shop~web~80/10.0.0.3:8080'],
    },
    {
      name: 'certificate rotation changes the certificate only',
      a: shop(),
      b: shop([1, 2], 'bb'.repeat(32)),
      want: ['changed certificate/web-tls'],
    },
    {
      name: 'a removed route changes its virtual service and removes route and pool',
      a: desired({
        virtualServices: [
          vs('http-80', 80, [route('a.example.com', '/', 'pa', 'a'), route('b.example.com', '/', 'pb', 'b')]),
        ],
        pools: [pool('pa', 'a', [1]), pool('pb', 'b', [2])],
      }),
      b: desired({
        virtualServices: [vs('http-80', 80, [route('a.example.com', '/', 'pa', 'a')])],
        pools: [pool('pa', 'a', [1])],
      }),
      want: [
        'changed virtual-service/http-80',
        'removed route/http-80/b.example.com/',
        'removed pool/pb',
        'removed member/pb/10.0.0.2:8080',
      ],
    },
  ];
  for (const c of cases) assert.deepEqual(summary(c.a, c.b), c.want, c.name);
});

test('diffDesiredStates: changes name the Kubernetes objects they come from, and before/after summaries', () => {
  const [d] = diffDesiredStates(shop([1]), shop([1, 4]));
  assert.deepEqual(d, {
    change: 'added',
    key: 'member/shop~web~80/10.0.0.4:8080',
    kind: 'member',
    before: '',
    after: '10.0.0.4:8080 active w1 (c1)',
    sources: ['c1/Service/shop/web'],
  });
});

test('listDesiredObjects: virtual services with their routes, pools with members, certificates; acceptances left out', () => {
  const d = {
    ...shop([1]),
    conditions: [
      {
        object: { cluster: 'c1', kind: 'Ingress' as const, namespace: 'shop', name: 'web' },
        type: 'Accepted' as const,
        reason: 'Accepted',
        message: '',
      },
      {
        object: { cluster: 'c1', kind: 'Ingress' as const, namespace: 'shop', name: 'bad' },
        type: 'Rejected' as const,
        reason: 'HostConflict',
        message: 'lost to shop/web',
      },
    ],
  };
  const rows = listDesiredObjects(d).map((o) => `${o.kind} ${o.summary}`);
  assert.deepEqual(rows, [
    'virtual-service default:80 http (3 route(s))',
    'route api.example.com/api → shop~api~80',
    'route web.example.com/static → shop~static~80',
    'route web.example.com/ → shop~web~80',
    'virtual-service default:443 https, certs web-tls (1 route(s))',
    'route web.example.com/ → shop~web~80',
    'pool 1 member(s)',
    'member 10.0.0.9:8080 active w1 (c1)',
    'pool 1 member(s)',
    'member 10.0.0.7:8080 active w1 (c1)',
    'pool 1 member(s)',
    'member 10.0.0.1:8080 active w1 (c1)',
    `certificate c1/Secret/shop/web-tls fp ${'a'.repeat(12)} hosts web.example.com`,
    'condition Rejected HostConflict: lost to shop/web',
  ]);
});
