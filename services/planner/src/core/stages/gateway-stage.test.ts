// The Gateway API on an appliance: a Gateway of a class the appliance answers becomes a virtual service per address
// and port; its HTTPRoutes become routes in the specification's precedence, each rule's backends one weighted pool.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DesiredState, Route } from '@portolan/desired-state';
import type { KubeWatchEvent } from '@portolan/kube-model';
import * as f from '../../testing/fixtures.ts';
import { planEvents, summarize } from '../../testing/summary.ts';
import { matchRequest } from '@portolan/routing';
import { Planner } from '../planner.ts';

type Obj = Record<string, unknown>;
const GW = 'gateway.networking.k8s.io/v1';

const gatewayClass = (controllerName = 'portolan.dev/gateway-controller'): Obj => ({
  apiVersion: GW,
  kind: 'GatewayClass',
  metadata: { name: 'portolan', resourceVersion: f.nextRv() },
  spec: { controllerName },
});

const gateway = (port = 8080, extra: Obj = {}): Obj => ({
  apiVersion: GW,
  kind: 'Gateway',
  metadata: { name: 'shared', namespace: 'infra', resourceVersion: f.nextRv(), creationTimestamp: f.at(0) },
  spec: {
    gatewayClassName: 'portolan',
    listeners: [{ name: 'http', port, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'All' } } }],
    ...extra,
  },
});

const route = (name: string, rules: Obj[], extra: Obj = {}): Obj => ({
  apiVersion: GW,
  kind: 'HTTPRoute',
  metadata: { name, namespace: 'default', resourceVersion: f.nextRv(), creationTimestamp: f.at(1) },
  spec: { parentRefs: [{ name: 'shared', namespace: 'infra' }], hostnames: ['shop.example.com'], rules, ...extra },
});

const canary = (stable: number, next: number): Obj =>
  route('canary', [
    {
      backendRefs: [
        { name: 'web-v1', port: 80, weight: stable },
        { name: 'web-v2', port: 80, weight: next },
      ],
    },
  ]);

const backends = (): Obj[] => [
  f.service('web-v1', [[undefined, 80]]),
  f.service('web-v2', [[undefined, 80]]),
  f.slice('web-v1-a', 'web-v1', undefined, 8080, [['10.1.0.1'], ['10.1.0.2'], ['10.1.0.3']]),
  f.slice('web-v2-a', 'web-v2', undefined, 8080, [['10.2.0.1']]),
];

const haproxy = f.fleet([{ name: 'c1' }], [f.appliance('lb', 'haproxy')]);

const vs = (d: DesiredState, name: string) => d.virtualServices.find((v) => v.name === name);
const share = (d: DesiredState, prefix: string): number => {
  const members = d.pools.flatMap((p) => p.members);
  const total = members.reduce((n, m) => n + m.weight, 0);
  return members.filter((m) => m.address.startsWith(prefix)).reduce((n, m) => n + m.weight, 0) / total;
};

test('a 90/10 HTTPRoute on a Gateway: one virtual service, one route, a pool whose member weights split 90/10', () => {
  const d = planEvents(haproxy, f.added('c1', gatewayClass(), gateway(), canary(90, 10), ...backends()));
  const v = vs(d, 'gw~default~8080');
  assert.ok(v, summarize(d).join('\n'));
  assert.equal(v.protocol, 'http');
  assert.deepEqual(
    v.routes.map((r) => [r.host, r.path, r.match, r.pool, r.order]),
    [['shop.example.com', '/', 'Prefix', 'gw~c1~default~canary~0', 0]],
  );
  assert.equal(d.pools.length, 1);
  assert.equal(d.pools[0]!.members.length, 4);
  assert.ok(Math.abs(share(d, '10.1.') - 0.9) < 0.01, `v1 share ${share(d, '10.1.')}`);
  assert.deepEqual(
    summarize(d).filter((l) => /^(Accepted|Rejected|Warning)/.test(l)),
    ['Accepted c1/infra/shared Accepted', 'Accepted c1//portolan Accepted', 'Accepted c1/default/canary Accepted'],
  );
  const statusOf = (kind: string) => d.conditions.find((c) => c.object.kind === kind && c.status)?.status;
  assert.deepEqual(statusOf('HTTPRoute'), {
    parents: [
      {
        parentRef: { group: 'gateway.networking.k8s.io', kind: 'Gateway', namespace: 'infra', name: 'shared' },
        controllerName: 'portolan.dev/gateway-controller',
        conditions: [
          { type: 'Accepted', status: 'True', reason: 'Accepted', message: 'Route accepted', observedGeneration: 0 },
          {
            type: 'ResolvedRefs',
            status: 'True',
            reason: 'ResolvedRefs',
            message: 'All references resolved',
            observedGeneration: 0,
          },
        ],
      },
    ],
  });
  const gw = statusOf('Gateway') as { conditions: { type: string; status: string }[]; listeners: unknown[] };
  assert.deepEqual(
    gw.conditions.map((c) => `${c.type}=${c.status}`),
    ['Accepted=True', 'Programmed=True'],
  );
  const [listener] = gw.listeners as { name: string; attachedRoutes: number; supportedKinds: unknown[] }[];
  assert.equal(listener?.attachedRoutes, 1);
  assert.deepEqual(listener?.supportedKinds, [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute' }]);
  const gc = statusOf('GatewayClass') as { conditions: { type: string }[] };
  assert.deepEqual(
    gc.conditions.map((c) => c.type),
    ['Accepted', 'SupportedVersion'],
  );
});

test('changing the weights changes only member weights: the same pool, the same virtual service', () => {
  const p = new Planner(haproxy);
  for (const e of f.added('c1', gatewayClass(), gateway(), canary(90, 10), ...backends())) p.applyEvent(e);
  p.planDirty();
  const before = p.desiredState('lb')!;
  p.applyEvent({ cluster: 'c1', kind: 'HTTPRoute', type: 'MODIFIED', object: canary(50, 50) });
  p.planDirty();
  const after = p.desiredState('lb')!;
  assert.deepEqual(after.virtualServices, before.virtualServices, 'routes and listeners unchanged');
  assert.deepEqual(
    after.pools.map((x) => x.name),
    before.pools.map((x) => x.name),
  );
  assert.deepEqual(
    after.pools[0]!.members.map((m) => [m.address, m.port]),
    before.pools[0]!.members.map((m) => [m.address, m.port]),
  );
  assert.ok(Math.abs(share(after, '10.1.') - 0.5) < 0.01, `v1 share ${share(after, '10.1.')}`);
});

test('an endpoint added to a backend re-weights its members so the split holds', () => {
  const p = new Planner(haproxy);
  for (const e of f.added('c1', gatewayClass(), gateway(), canary(90, 10), ...backends())) p.applyEvent(e);
  p.planDirty();
  const grown = f.slice('web-v2-a', 'web-v2', undefined, 8080, [['10.2.0.1'], ['10.2.0.2']]);
  p.applyEvent({ cluster: 'c1', kind: 'EndpointSlice', type: 'MODIFIED', object: grown });
  p.planDirty();
  const d = p.desiredState('lb')!;
  assert.equal(d.pools[0]!.members.length, 5);
  assert.ok(Math.abs(share(d, '10.2.') - 0.1) < 0.01, `v2 share ${share(d, '10.2.')}`);
});

test('matches are ordered by the specification: Exact, then longer prefixes, then method and header counts', () => {
  const rules = [
    { matches: [{ path: { type: 'PathPrefix', value: '/' } }], backendRefs: [{ name: 'web-v1', port: 80 }] },
    {
      matches: [{ path: { type: 'PathPrefix', value: '/' }, headers: [{ name: 'x-canary', value: 'yes' }] }],
      backendRefs: [{ name: 'web-v2', port: 80 }],
    },
    { matches: [{ path: { type: 'Exact', value: '/login' } }], backendRefs: [{ name: 'web-v2', port: 80 }] },
    {
      matches: [{ path: { type: 'PathPrefix', value: '/api' }, method: 'POST' }],
      backendRefs: [{ name: 'web-v2', port: 80 }],
    },
  ];
  const d = planEvents(haproxy, f.added('c1', gatewayClass(), gateway(), route('app', rules), ...backends()));
  const routes = vs(d, 'gw~default~8080')!.routes;
  const line = (r: Route): string =>
    `${r.match} ${r.path}${r.method ? ` ${r.method}` : ''}${r.headers ? ` h=${r.headers.length}` : ''} -> ${r.pool}`;
  assert.deepEqual(routes.map(line), [
    'Exact /login -> gw~c1~default~app~2',
    'Prefix /api POST -> gw~c1~default~app~3',
    'Prefix / h=1 -> gw~c1~default~app~1',
    'Prefix / -> gw~c1~default~app~0',
  ]);
  // The reference matcher (explain, tests) takes the first route in that order that host and path decide.
  const v = vs(d, 'gw~default~8080')!;
  const pool = (path: string) => {
    const o = matchRequest(v, 'shop.example.com', path);
    return o.kind === 'pool' ? o.pool : o.kind;
  };
  assert.equal(pool('/login'), 'gw~c1~default~app~2');
  assert.equal(pool('/api/x'), 'gw~c1~default~app~0', 'the POST-only route needs a method to decide');
  assert.equal(pool('/other'), 'gw~c1~default~app~0');
});

test('a rule whose backends do not resolve answers 500; the route says why', () => {
  const rules = [{ backendRefs: [{ name: 'missing', port: 80 }] }];
  const d = planEvents(haproxy, f.added('c1', gatewayClass(), gateway(), route('broken', rules)));
  const [r] = vs(d, 'gw~default~8080')!.routes;
  assert.equal(r?.fixedStatus, 500);
  assert.equal(r?.pool, '');
  assert.deepEqual(
    summarize(d).filter((l) => /^(Accepted|Rejected|Warning)/.test(l) && l.includes('broken')),
    ['Accepted c1/default/broken Accepted', 'Warning c1/default/broken BackendNotFound'],
  );
});

test('a Gateway of another controller, and a route on it, leave the appliance alone', () => {
  const d = planEvents(haproxy, f.added('c1', gatewayClass('example.com/other'), gateway(), canary(1, 1)));
  assert.deepEqual(summarize(d), []);
});

test('a Gateway listener on a port an Ingress holds is PortUnavailable; the Ingress keeps it', () => {
  const events: KubeWatchEvent[] = f.added(
    'c1',
    f.ingressClass('portolan', 'portolan.dev/ingress-controller', true),
    f.ingress({ name: 'web', rules: [f.rule('a.example.com', ['/', 'Prefix', 'web-v1', 80])] }),
    gatewayClass(),
    gateway(80),
    canary(90, 10),
    ...backends(),
  );
  const d = planEvents(haproxy, events);
  assert.deepEqual(
    d.virtualServices.map((v) => v.name),
    ['default~80'],
  );
  assert.ok(
    summarize(d).includes('Warning c1/infra/shared PortUnavailable'),
    summarize(d, { messages: true }).join('\n'),
  );
  assert.ok(summarize(d).includes('Rejected c1/infra/shared ListenersNotValid'));
});

test('a route with a header match is planned on vTM and on LoadMaster', () => {
  const rules = [
    {
      matches: [{ path: { type: 'PathPrefix', value: '/' }, headers: [{ name: 'x-canary', value: 'yes' }] }],
      backendRefs: [{ name: 'web-v2', port: 80 }],
    },
  ];
  const events = (): ReturnType<typeof f.added> =>
    f.added('c1', gatewayClass(), gateway(), route('app', rules), ...backends());
  const vtm = planEvents(f.fleet([{ name: 'c1' }], [f.appliance('lb', 'vtm')]), events());
  const routes = vs(vtm, 'gw~default~8080')!.routes;
  assert.equal(routes.length, 1);
  assert.deepEqual(routes[0]?.headers, [{ name: 'x-canary', type: 'Exact', value: 'yes' }]);
  assert.equal(vtm.pools.length, 1);
  assert.ok(!summarize(vtm).some((line) => line.includes('UnsupportedValue')), summarize(vtm).join('\n'));
  const loadmaster = planEvents(f.fleet([{ name: 'c1' }], [f.appliance('lb', 'loadmaster')]), events());
  assert.deepEqual(
    vs(loadmaster, 'gw~default~8080')!.routes.map((r) => r.headers),
    [[{ name: 'x-canary', type: 'Exact', value: 'yes' }]],
  );
  assert.equal(loadmaster.pools.length, 1);
  assert.ok(!summarize(loadmaster).some((line) => line.includes('UnsupportedValue')), summarize(loadmaster).join('\n'));
});

test("a route the appliance refused is left out of that appliance's plan, with its message; the others stay", () => {
  const p = new Planner(haproxy);
  const other = route('other', [{ backendRefs: [{ name: 'web-v1', port: 80 }] }], { hostnames: ['other.example.com'] });
  for (const e of f.added('c1', gatewayClass(), gateway(), canary(90, 10), other, ...backends())) p.applyEvent(e);
  p.planDirty();
  const message = 'route "shop.example.com" "/": \\d is not a POSIX escape';
  const refusal = { cluster: 'c1', kind: 'HTTPRoute' as const, namespace: 'default', name: 'canary', message };
  assert.equal(p.refuseObjects({ appliance: 'lb', snapshotId: '1', objects: [refusal] }), 1);
  p.planDirty();
  const d = p.desiredState('lb')!;
  assert.deepEqual(
    vs(d, 'gw~default~8080')!.routes.map((r) => r.host),
    ['other.example.com'],
  );
  const line = d.conditions.find((c) => c.object.name === 'canary' && c.status !== undefined);
  assert.equal(line?.type, 'Rejected');
  assert.equal(line?.reason, 'UnsupportedValue');
  assert.match(line?.message ?? '', /refused by the appliance: .*POSIX escape/);
  // Changing the route gives it another chance.
  p.applyEvent({ cluster: 'c1', kind: 'HTTPRoute', type: 'MODIFIED', object: canary(80, 20) });
  p.planDirty();
  assert.equal(vs(p.desiredState('lb')!, 'gw~default~8080')!.routes.length, 2);
});

test('with an address pool, Gateways on one port get an address each and keep it while others come and go', () => {
  const pooled = f.fleet(
    [{ name: 'c1' }],
    [f.appliance('lb', 'haproxy', { gatewayAddresses: ['127.0.30.1', '127.0.30.2'] })],
  );
  const named = (name: string, minute: number): Obj => {
    const g = gateway(80);
    return { ...g, metadata: { ...(g['metadata'] as Obj), name, creationTimestamp: f.at(minute) } };
  };
  const p = new Planner(pooled);
  for (const e of f.added('c1', gatewayClass(), named('a', 0), named('b', 1), named('c', 2))) p.applyEvent(e);
  p.planDirty();
  const addressOf = (d: DesiredState, gw: string): string | undefined => {
    const v = d.virtualServices.find((x) => x.owners.some((o) => o.name === gw));
    return v === undefined ? undefined : v.address.kind === 'default' ? 'default' : v.address.ip;
  };
  const first = p.desiredState('lb')!;
  const a = addressOf(first, 'a');
  const b = addressOf(first, 'b');
  assert.deepEqual([a, b].sort(), ['127.0.30.1', '127.0.30.2'], summarize(first).join('\n'));
  assert.equal(addressOf(first, 'c'), 'default', 'the pool is used up: the third takes the default address');
  // The youngest goes away: the others keep their addresses.
  p.applyEvent({ cluster: 'c1', kind: 'Gateway', type: 'DELETED', object: named('c', 2) });
  p.planDirty();
  const after = p.desiredState('lb')!;
  assert.equal(addressOf(after, 'a'), a);
  assert.equal(addressOf(after, 'b'), b);
});

test('a TLSRoute on a TLS Passthrough listener routes by SNI to a weighted pool; an HTTPRoute may not attach there', () => {
  const tlsGateway: Obj = {
    ...gateway(),
    spec: {
      gatewayClassName: 'portolan',
      listeners: [
        {
          name: 'tls',
          port: 8443,
          protocol: 'TLS',
          tls: { mode: 'Passthrough' },
          allowedRoutes: { namespaces: { from: 'All' } },
        },
      ],
    },
  };
  const tlsRoute: Obj = {
    apiVersion: 'gateway.networking.k8s.io/v1alpha2',
    kind: 'TLSRoute',
    metadata: { name: 'db', namespace: 'default', resourceVersion: f.nextRv(), creationTimestamp: f.at(1) },
    spec: {
      parentRefs: [{ name: 'shared', namespace: 'infra' }],
      hostnames: ['db.example.com'],
      rules: [{ backendRefs: [{ name: 'web-v1', port: 80 }] }],
    },
  };
  const d = planEvents(haproxy, f.added('c1', gatewayClass(), tlsGateway, tlsRoute, canary(90, 10), ...backends()));
  const v = vs(d, 'gw~default~8443');
  assert.equal(v?.protocol, 'tls-passthrough', summarize(d).join('\n'));
  assert.deepEqual(
    v.routes.map((r) => [r.host, r.path, r.pool, r.source.kind]),
    [['db.example.com', '', 'gw~c1~default~db~0', 'TLSRoute']],
  );
  const lines = summarize(d).filter((l) => /^(Accepted|Rejected)/.test(l));
  assert.ok(lines.includes('Accepted c1/default/db Accepted'), lines.join('\n'));
  assert.ok(lines.includes('Rejected c1/default/canary NotAllowedByListeners'), lines.join('\n'));
  const status = d.conditions.find((c) => c.object.kind === 'TLSRoute' && c.status)?.status as {
    parents: { conditions: { type: string; status: string }[] }[];
  };
  assert.deepEqual(
    status.parents[0]!.conditions.map((c) => `${c.type}=${c.status}`),
    ['Accepted=True', 'ResolvedRefs=True'],
  );
});

test('on vTM and LoadMaster, a weighted canary (two backendRefs in a rule) is one pool whose weights split 90/10', () => {
  for (const driver of ['vtm', 'loadmaster'] as const) {
    const fleet = f.fleet([{ name: 'c1' }], [f.appliance('lb', driver)]);
    const d = planEvents(fleet, f.added('c1', gatewayClass(), gateway(), canary(90, 10), ...backends()));
    assert.deepEqual(
      vs(d, 'gw~default~8080')?.routes.map((r) => r.pool),
      ['gw~c1~default~canary~0'],
      `${driver}: ${summarize(d, { messages: true }).join('\n')}`,
    );
    assert.deepEqual(
      d.pools.map((p) => p.members.length),
      [4],
      driver,
    );
    assert.ok(Math.abs(share(d, '10.1.') - 0.9) < 0.01, `${driver}: v1 share ${share(d, '10.1.')}`);
    assert.ok(summarize(d).includes('Accepted c1/default/canary Accepted'), `${driver}: ${summarize(d).join('\n')}`);
  }
});
