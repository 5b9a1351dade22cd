import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderVendorState } from './render-vendor-state.ts';
import { ownerMark } from './owner-mark.ts';
import { binding, certificate, desiredState, member, pool, route, virtualService } from '../testing/desired-builder.ts';

const config = { appliance: 'lm1', defaultAddress: '10.0.0.99' };

test('Ingress mode: one VS, one SubVS per pool with its exact rules, one real server per member', () => {
  const desired = desiredState({
    virtualServices: [
      virtualService('web-80', [
        route('shop.example.com', '/api', 'Prefix', 'api'),
        route('shop.example.com', '/', 'Prefix', 'front'),
      ]),
    ],
    pools: [
      pool('api', [member('10.1.0.2', 8080), member('10.1.0.1', 8080, 'draining')]),
      pool('front', [member('10.1.0.3', 80)]),
    ],
  });
  const out = renderVendorState(desired, config);
  assert.equal(out.virtualServices.length, 1);
  const vs = out.virtualServices[0];
  assert.ok(vs !== undefined);
  assert.equal(vs.nickname, ownerMark('lm1', 'vs', 'web-80'));
  assert.deepEqual([vs.address, vs.port, vs.protocol], ['10.0.0.10', 80, 'tcp']);
  assert.deepEqual(vs.params, {
    VStype: 'http',
    ForceL7: '1',
    SSLAcceleration: '0',
    CertFile: '',
    ErrorCode: '0',
    ErrorUrl: '',
  });
  const api = vs.subVss.find((s) => s.nickname === ownerMark('lm1', 'sv', 'api'));
  assert.deepEqual(api?.realServers, [
    { address: '10.1.0.1', port: 8080, weight: 1, enable: false },
    { address: '10.1.0.2', port: 8080, weight: 1, enable: true },
  ]);
  assert.equal(out.rules.length, 2);
  assert.ok(out.rules.every((r) => r.incHost && r.name.startsWith('ptl_lm1_rl_')));
  assert.deepEqual(
    vs.subVss.map((s) => s.rules.length),
    [1, 1],
  );
  assert.deepEqual(out.bindings, []);
});

test('Ingress mode: the default address comes from config; without one the VS is skipped with a reason', () => {
  const vs = virtualService('d-80', [route('', '/', 'Prefix', 'p')], { address: { kind: 'default' } });
  const desired = desiredState({ virtualServices: [vs], pools: [pool('p', [])] });
  assert.equal(renderVendorState(desired, config).virtualServices[0]?.address, '10.0.0.99');
  const none = renderVendorState(desired, { appliance: 'lm1', defaultAddress: null });
  assert.deepEqual(none.virtualServices, []);
  assert.equal(none.skipped[0]?.name, 'd-80');
});

test('Ingress mode: TLS uses certificates named by fingerprint; the render holds the Secret reference only', () => {
  const vs = virtualService('web-443', [route('shop.example.com', '/', 'Prefix', 'p')], {
    port: 443,
    protocol: 'https',
    certificates: ['shop-tls'],
  });
  const one = renderVendorState(
    desiredState({ virtualServices: [vs], pools: [pool('p', [])], certificates: [certificate('shop-tls', 'aaaa')] }),
    config,
  );
  const two = renderVendorState(
    desiredState({ virtualServices: [vs], pools: [pool('p', [])], certificates: [certificate('shop-tls', 'bbbb')] }),
    config,
  );
  const c1 = one.certificates[0];
  assert.ok(c1 !== undefined);
  assert.deepEqual(c1.secret, { cluster: 'c1', kind: 'Secret', namespace: 'default', name: 'shop-tls' });
  assert.notEqual(c1.name, two.certificates[0]?.name, 'new material → new certificate name');
  assert.equal(one.virtualServices[0]?.params['SSLAcceleration'], '1');
  assert.equal(one.virtualServices[0]?.params['CertFile'], c1.name);
  assert.doesNotMatch(JSON.stringify(one), /PRIVATE KEY/);
});

test('Ingress mode: a default backend that also has routes gets its own rule-less SubVS', () => {
  const vs = virtualService('web-80', [route('a.example.com', '/', 'Prefix', 'p')], { defaultPool: 'p' });
  const out = renderVendorState(
    desiredState({ virtualServices: [vs], pools: [pool('p', [member('10.1.0.1', 80)])] }),
    config,
  );
  const subs = out.virtualServices[0]?.subVss ?? [];
  assert.equal(subs.length, 2);
  assert.deepEqual(subs.map((s) => s.rules.length).sort(), [0, 1]);
});

test('Ingress mode: an ssl-redirect listener is a rule-less VS answering 302 to https', () => {
  const vs = virtualService('web-80', [], { redirectToHttpsPort: 443 });
  const out = renderVendorState(desiredState({ virtualServices: [vs] }), config);
  assert.equal(out.virtualServices[0]?.params['ErrorCode'], '302');
  assert.equal(out.virtualServices[0]?.params['ErrorUrl'], 'https://%h:443%s');
  assert.deepEqual(out.virtualServices[0]?.subVss, []);
});

test('weights: a SubVS or passthrough VS whose real servers differ in weight schedules wrr; equal ones add nothing', () => {
  const weighted = (address: string, weight: number): ReturnType<typeof member> => ({
    ...member(address, 80),
    weight,
  });
  const routes = [route('a.example.com', '/', 'Prefix', 'canary'), route('b.example.com', '/', 'Prefix', 'even')];
  const out = renderVendorState(
    desiredState({
      virtualServices: [
        virtualService('web-80', routes),
        virtualService('tls-443', [route('a.example.com', '/', 'Prefix', 'canary')], {
          port: 443,
          protocol: 'tls-passthrough',
        }),
      ],
      pools: [
        pool('canary', [weighted('10.1.0.1', 90), weighted('10.1.0.2', 10)]),
        pool('even', [weighted('10.1.0.3', 5), weighted('10.1.0.4', 5)]),
      ],
    }),
    config,
  );
  const web = out.virtualServices.find((v) => v.nickname === ownerMark('lm1', 'vs', 'web-80'));
  assert.deepEqual(web?.subVss.find((s) => s.nickname === ownerMark('lm1', 'sv', 'canary'))?.params, {
    Schedule: 'wrr',
  });
  const even = web?.subVss.find((s) => s.nickname === ownerMark('lm1', 'sv', 'even'));
  assert.ok(even !== undefined && !('params' in even), 'equal weights: the SubVS renders as before');
  assert.equal(web?.params['Schedule'], undefined, 'a VS routing to SubVSs schedules nothing itself');
  const tls = out.virtualServices.find((v) => v.nickname === ownerMark('lm1', 'vs', 'tls-443'));
  assert.equal(tls?.params['Schedule'], 'wrr');
});

test('Service mode: each binding becomes the real servers of its target; no VS is rendered', () => {
  const desired = desiredState({
    bindings: [binding('12', 'echo', [member('10.2.0.2', 8080), member('10.2.0.1', 8080)])],
  });
  const out = renderVendorState(desired, config);
  assert.deepEqual(out.virtualServices, []);
  assert.deepEqual(out.bindings, [
    {
      target: '12',
      service: 'c1/default/echo',
      realServers: [
        { address: '10.2.0.1', port: 8080, weight: 1, enable: true },
        { address: '10.2.0.2', port: 8080, weight: 1, enable: true },
      ],
    },
  ]);
});

test('render is deterministic: input order of pools and members does not change the output', () => {
  const routes = [route('a.example.com', '/', 'Prefix', 'p'), route('b.example.com', '/', 'Prefix', 'q')];
  const a = desiredState({
    virtualServices: [virtualService('v', routes)],
    pools: [pool('p', [member('10.0.0.1', 1), member('10.0.0.2', 1)]), pool('q', [])],
  });
  const b = desiredState({
    virtualServices: [virtualService('v', routes)],
    pools: [pool('q', []), pool('p', [member('10.0.0.2', 1), member('10.0.0.1', 1)])],
  });
  assert.deepEqual(renderVendorState(a, config), renderVendorState(b, config));
});
