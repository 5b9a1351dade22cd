import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DesiredState } from '@portolan/desired-state';
import * as f from '../../testing/fixtures.ts';
import { planEvents, summarize } from '../../testing/summary.ts';

/** HTTPRoute on a LoadMaster appliance: what its driver implements is planned, the rest refused by name. */

type Obj = Record<string, unknown>;
const GW = 'gateway.networking.k8s.io/v1';

const objects = (rules: Obj[]): Obj[] => [
  {
    apiVersion: GW,
    kind: 'GatewayClass',
    metadata: { name: 'portolan', resourceVersion: f.nextRv() },
    spec: { controllerName: 'portolan.dev/gateway-controller' },
  },
  {
    apiVersion: GW,
    kind: 'Gateway',
    metadata: { name: 'shared', namespace: 'infra', resourceVersion: f.nextRv(), creationTimestamp: f.at(0) },
    spec: {
      gatewayClassName: 'portolan',
      listeners: [{ name: 'http', port: 8080, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'All' } } }],
    },
  },
  {
    apiVersion: GW,
    kind: 'HTTPRoute',
    metadata: { name: 'app', namespace: 'default', resourceVersion: f.nextRv(), creationTimestamp: f.at(1) },
    spec: { parentRefs: [{ name: 'shared', namespace: 'infra' }], hostnames: ['shop.example.com'], rules },
  },
  f.service('web', [[undefined, 80]]),
  f.slice('web-a', 'web', undefined, 8080, [['10.1.0.1']]),
];

function plan(rules: Obj[]): DesiredState {
  return planEvents(f.fleet([{ name: 'c1' }], [f.appliance('lb', 'loadmaster')]), f.added('c1', ...objects(rules)));
}

const routeStatus = (d: DesiredState): string[] =>
  summarize(d).filter((l) => /^(Accepted|Rejected|Warning) c1\/default\/app /.test(l));

test('a header and method match with request and response header edits is planned and Accepted', () => {
  const d = plan([
    {
      matches: [
        {
          path: { type: 'PathPrefix', value: '/api' },
          headers: [{ name: 'X-Env', value: 'canary' }],
          method: 'POST',
        },
      ],
      filters: [
        {
          type: 'RequestHeaderModifier',
          requestHeaderModifier: { set: [{ name: 'X-Route', value: 'canary' }], add: [], remove: ['X-Secret'] },
        },
        { type: 'ResponseHeaderModifier', responseHeaderModifier: { add: [{ name: 'X-Served-By', value: 'lm' }] } },
      ],
      backendRefs: [{ name: 'web', port: 80 }],
    },
  ]);
  const routes = d.virtualServices.find((v) => v.name === 'gw~default~8080')?.routes ?? [];
  assert.equal(routes.length, 1);
  assert.deepEqual(routes[0]?.headers, [{ name: 'X-Env', type: 'Exact', value: 'canary' }]);
  assert.equal(routes[0]?.method, 'POST');
  assert.deepEqual(routes[0]?.filters, {
    requestHeaders: { set: [{ name: 'X-Route', value: 'canary' }], add: [], remove: ['X-Secret'] },
    responseHeaders: { set: [], add: [{ name: 'X-Served-By', value: 'lm' }], remove: [] },
  });
  assert.deepEqual(routeStatus(d), ['Accepted c1/default/app Accepted'], summarize(d).join('\n'));
});

test('query matches, regex paths, redirects and rewrites stay refused on LoadMaster with UnsupportedValue', () => {
  const backendRefs = [{ name: 'web', port: 80 }];
  const refused: Obj[] = [
    { matches: [{ path: { type: 'PathPrefix', value: '/' }, queryParams: [{ name: 'q', value: '1' }] }], backendRefs },
    { matches: [{ path: { type: 'RegularExpression', value: '/a.*' } }], backendRefs },
    { filters: [{ type: 'RequestRedirect', requestRedirect: { scheme: 'https' } }] },
    { filters: [{ type: 'URLRewrite', urlRewrite: { hostname: 'x.example.com' } }], backendRefs },
  ];
  for (const rule of refused) {
    const d = plan([rule]);
    assert.deepEqual(
      d.virtualServices.find((v) => v.name === 'gw~default~8080')?.routes ?? [],
      [],
      JSON.stringify(rule),
    );
    assert.deepEqual(routeStatus(d), ['Rejected c1/default/app UnsupportedValue'], JSON.stringify(rule));
  }
});
