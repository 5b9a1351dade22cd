import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fleetConfigSchema } from '@portolan/fleet-config';
import { explainFingerprint, kubeInputsOf, resolveExplainTarget } from './explain-target.ts';
import { parseHostPath } from './request-route.ts';
import { listVendorObjects } from './vendor-objects.ts';
import { vendorRenderer } from './vendor-renderer.ts';
import { desired, pool, ref, route, shop, vs } from '../testing/desired-fixture.ts';
import { formatExplainTable } from './explain-report.ts';

const fleet = fleetConfigSchema.parse({
  version: 1,
  clusters: [{ name: 'c1' }],
  appliances: [
    {
      name: 'edge',
      driver: 'vtm',
      vtm: { url: 'https://vtm.example:9070', username: 'a', passwordFile: 'p', defaultTrafficIpGroup: 'tip' },
    },
    {
      name: 'lm',
      driver: 'loadmaster',
      loadmaster: { url: 'https://lm.example', apiKeyFile: 'k', defaultAddress: '10.9.9.9' },
    },
    { name: 'hap', driver: 'haproxy', haproxy: { configDir: '/etc/hap', masterSocket: '/run/hap.sock' } },
  ],
  bus: { url: 'nats://x' },
  store: { url: 'postgres://x' },
  leases: { redisUrl: 'redis://x' },
  secrets: { keyFile: 'k' },
});
const renderer = (name: string) => vendorRenderer(fleet.appliances.find((a) => a.name === name)!);
const resolve = (appliance: string, query: string, d = shop()) => {
  const r = renderer(appliance);
  const desired = { ...d, appliance, driver: r.kind };
  return {
    target: resolveExplainTarget(query, r.kind, desired, listVendorObjects(r.kind, r.render(desired))),
    desired,
    r,
  };
};
const inputs = (x: ReturnType<typeof resolve>): string[] =>
  kubeInputsOf(x.target, x.desired).map((i) => `${i.ref.kind}/${i.ref.name}`);

test('parseHostPath: host/path requests, any host, and text that is not one', () => {
  assert.deepEqual(parseHostPath('web.example.com/static/app.js'), { host: 'web.example.com', path: '/static/app.js' });
  assert.deepEqual(parseHostPath('web.example.com'), { host: 'web.example.com', path: '/' });
  assert.deepEqual(parseHostPath('*/healthz'), { host: '', path: '/healthz' });
  assert.equal(parseHostPath('pools/portolan-pl-x'), null);
});

test("explain a request: the planner's matching picks the longest path, on every listener that serves the host", () => {
  const x = resolve('edge', 'web.example.com/static/app.js');
  assert.ok(x.target.type === 'route');
  assert.deepEqual(
    x.target.matches.map((m) => `${m.vs} ${m.route?.path} ${m.pool}`),
    ['http-80 /static shop~static~80', 'https-443 / shop~web~80'],
  );
  assert.deepEqual(inputs(x), ['Ingress/web', 'Service/static', 'Service/web']);
  const none = resolve('edge', 'nothing.example.com/');
  assert.deepEqual(none.target, { type: 'unknown', message: 'no virtual service of edge routes nothing.example.com/' });
});

test('explain a vendor object on each driver: by full id, by name, or by a unique part of the name', () => {
  const poolId = listVendorObjects('vtm', renderer('edge').render({ ...shop(), appliance: 'edge' })).find((o) =>
    o.id.startsWith('pools/portolan-pl-shop_web_80'),
  )!.id;
  const full = resolve('edge', poolId);
  assert.ok(full.target.type === 'vendor' && full.target.id === poolId);
  const byName = resolve('edge', poolId.slice('pools/'.length));
  assert.ok(byName.target.type === 'vendor' && byName.target.id === poolId);
  const byPart = resolve('edge', 'pl-shop_web_80');
  assert.ok(byPart.target.type === 'vendor' && byPart.target.id.startsWith('pools/portolan-pl-shop_web_80'));
  assert.deepEqual(byPart.target.neutral, [{ type: 'pool', name: 'shop~web~80' }]);
  assert.deepEqual(inputs(byPart), ['Ingress/web', 'Service/web']);
  const key = resolve('edge', 'key-web-tls');
  assert.deepEqual(inputs(key), ['Secret/web-tls', 'Ingress/web']);
  const lm = resolve('lm', 'ptl_lm_rl_');
  assert.ok(lm.target.type === 'unknown' && /ambiguous/.test(lm.target.message), 'three content rules share that part');
  const hap = resolve('hap', 'backend/http:shop~web~80');
  assert.equal(hap.target.type, 'unknown', 'HAProxy rewrites ~ in names');
  const hapPool = resolve('hap', 'shop_web_80');
  assert.ok(
    hapPool.target.type === 'vendor' && hapPool.target.id.startsWith('backend/http:shop_web_80'),
    JSON.stringify(hapPool.target),
  );
  const frontend = resolve('hap', 'frontend/fe:https-443');
  assert.ok(frontend.target.type === 'vendor');
  assert.deepEqual(inputs(frontend), ['Ingress/web', 'Secret/web-tls']);
});

test('explainFingerprint: changes exactly when what serves the target changes', () => {
  const fp = (query: string, d: ReturnType<typeof shop>) => {
    const x = resolve('edge', query, d);
    return explainFingerprint(x.target, x.desired, listVendorObjects(x.r.kind, x.r.render(x.desired)));
  };
  assert.equal(
    fp('web.example.com/', shop([1, 2])),
    fp('web.example.com/', shop([1, 2], 'bb'.repeat(32))),
    'a certificate change does not change the route to the web pool',
  );
  assert.notEqual(
    fp('web.example.com/', shop([1, 2])),
    fp('web.example.com/', shop([1, 2, 3])),
    'a member change does',
  );
  assert.equal(
    fp('api.example.com/api', shop([1, 2])),
    fp('api.example.com/api', shop([1, 2, 3])),
    'other pools do not',
  );
  assert.notEqual(fp('key-web-tls', shop()), fp('key-web-tls', shop([1, 2], 'bb'.repeat(32))));
});

test('explain a request a Gateway API route serves: the HTTPRoute, its rule, the Gateway and its listener', () => {
  const httpRoute = { ...ref('HTTPRoute', 'canary'), namespace: 'demo' };
  const gateway = { ...ref('Gateway', 'shared'), namespace: 'infra' };
  const d = desired({
    virtualServices: [
      vs(
        'gw~default~80',
        80,
        [
          {
            ...route('canary.example.com', '/api', 'gw~c1~demo~canary~1', ''),
            source: httpRoute,
            order: 0,
            via: { rule: 1, listener: 'http' },
          },
          {
            ...route('canary.example.com', '/', 'gw~c1~demo~canary~0', ''),
            source: httpRoute,
            order: 1,
            via: { rule: 0, listener: 'http' },
          },
        ],
        { owners: [gateway], wildcardLabels: 'any' },
      ),
    ],
    pools: [pool('gw~c1~demo~canary~1', 'api', [3]), pool('gw~c1~demo~canary~0', 'web', [4])],
  });
  const x = resolve('hap', 'canary.example.com/api/v1', d);
  assert.ok(x.target.type === 'route');
  assert.deepEqual(
    kubeInputsOf(x.target, x.desired).map((i) => `${i.ref.kind} ${i.ref.namespace}/${i.ref.name}: ${i.role}`),
    [
      'HTTPRoute demo/canary: rule 1: routes canary.example.com/api on gw~default~80',
      'Gateway infra/shared: listener http carries gw~default~80',
      'Service shop/api: backs pool gw~c1~demo~canary~1',
    ],
  );
  const report = formatExplainTable({
    appliance: 'hap',
    snapshot: 's1',
    query: 'q',
    target: x.target,
    objects: [],
    lastChange: null,
    conditions: [],
  });
  assert.match(
    report,
    /route canary\.example\.com\/api \(Prefix\) → pool gw~c1~demo~canary~1, from HTTPRoute demo\/canary rule 1 via Gateway infra\/shared listener http/,
  );
});

test('explain with the request: a header-matched rule is named only for the request that carries the header', () => {
  const httpRoute = { ...ref('HTTPRoute', 'shop'), namespace: 'demo' };
  const beta = { ...route('shop.example.com', '/', 'gw~beta', ''), source: httpRoute, order: 0 };
  const stable = { ...route('shop.example.com', '/', 'gw~stable', ''), source: httpRoute, order: 1 };
  const d = desired({
    virtualServices: [
      vs(
        'gw~default~80',
        80,
        [
          {
            ...beta,
            headers: [{ name: 'X-Cohort', type: 'Exact', value: 'beta' }],
            via: { rule: 0, listener: 'http' },
          },
          { ...stable, via: { rule: 1, listener: 'http' } },
        ],
        { wildcardLabels: 'any' },
      ),
    ],
    pools: [pool('gw~beta', 'beta', [1]), pool('gw~stable', 'stable', [2])],
  });
  const r = renderer('hap');
  const desiredHap = { ...d, appliance: 'hap', driver: r.kind };
  const objects = listVendorObjects(r.kind, r.render(desiredHap));
  const poolOf = (request?: { method: string; headers: Record<string, string> }) => {
    const t = resolveExplainTarget('shop.example.com/x?y=1', r.kind, desiredHap, objects, request);
    assert.ok(t.type === 'route');
    return t.matches.map((m) => m.pool);
  };
  assert.deepEqual(poolOf({ method: 'GET', headers: { 'x-cohort': 'beta' } }), ['gw~beta']);
  assert.deepEqual(poolOf({ method: 'GET', headers: {} }), ['gw~stable']);
  assert.deepEqual(poolOf(), ['gw~stable'], 'host and path alone: the first rule asking nothing more');
});
