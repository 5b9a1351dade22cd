// A route may name a Service before it exists (manifests applied in any order) or after it is gone: the route's
// ResolvedRefs and its pool follow the Service as it comes and goes, and the plan equals a plan from scratch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeWatchEvent } from '@portolan/kube-model';
import * as f from '../../testing/fixtures.ts';
import { planEvents, summarize } from '../../testing/summary.ts';
import { Planner } from '../planner.ts';

const GW = 'gateway.networking.k8s.io/v1';
const objects = {
  gatewayClass: {
    apiVersion: GW,
    kind: 'GatewayClass',
    metadata: { name: 'portolan', resourceVersion: '1' },
    spec: { controllerName: 'portolan.dev/gateway-controller' },
  },
  gateway: {
    apiVersion: GW,
    kind: 'Gateway',
    metadata: { name: 'shared', namespace: 'default', resourceVersion: '2', creationTimestamp: f.at(0) },
    spec: { gatewayClassName: 'portolan', listeners: [{ name: 'http', port: 8080, protocol: 'HTTP' }] },
  },
  route: {
    apiVersion: GW,
    kind: 'HTTPRoute',
    metadata: { name: 'late', namespace: 'default', resourceVersion: '3', creationTimestamp: f.at(1) },
    spec: { parentRefs: [{ name: 'shared' }], rules: [{ backendRefs: [{ name: 'web', port: 80 }] }] },
  },
};
const service = f.service('web', [[undefined, 80]]);
const slice = f.slice('web-a', 'web', undefined, 8080, [['10.1.0.1']]);
const fleet = f.fleet([{ name: 'c1' }], [f.appliance('lb', 'haproxy')]);

const routeLines = (p: Planner) =>
  summarize(p.desiredState('lb')!).filter((l) => /^(Accepted|Warning)/.test(l) && l.includes('late'));
const apply = (p: Planner, events: readonly KubeWatchEvent[]) => {
  for (const e of events) p.applyEvent(e);
  p.planDirty();
};

test('a Service created after the route that names it resolves the route; deleted, it unresolves it again', () => {
  const p = new Planner(fleet);
  apply(p, f.added('c1', objects.gatewayClass, objects.gateway, objects.route));
  assert.deepEqual(routeLines(p), ['Accepted c1/default/late Accepted', 'Warning c1/default/late BackendNotFound']);
  assert.equal(p.desiredState('lb')!.virtualServices[0]!.routes[0]!.fixedStatus, 500);

  apply(p, f.added('c1', service, slice));
  const served = p.desiredState('lb')!;
  assert.deepEqual(routeLines(p), ['Accepted c1/default/late Accepted'], 'ResolvedRefs is True again');
  assert.equal(served.virtualServices[0]!.routes[0]!.fixedStatus, undefined);
  assert.deepEqual(
    served.pools.flatMap((x) => x.members.map((m) => m.address)),
    ['10.1.0.1'],
  );
  const fresh = planEvents(fleet, f.added('c1', objects.gatewayClass, objects.gateway, objects.route, service, slice));
  assert.deepEqual(summarize(served), summarize(fresh), 'the same plan as from scratch');

  apply(p, [{ cluster: 'c1', kind: 'Service', type: 'DELETED', object: service }]);
  assert.deepEqual(routeLines(p), ['Accepted c1/default/late Accepted', 'Warning c1/default/late BackendNotFound']);
  assert.equal(p.desiredState('lb')!.virtualServices[0]!.routes[0]!.fixedStatus, 500);
});

test('a Secret no Gateway listener names leaves the Gateway translation alone; a named one redoes it', () => {
  const https = {
    ...objects.gateway,
    spec: {
      gatewayClassName: 'portolan',
      listeners: [{ name: 'https', port: 8443, protocol: 'HTTPS', tls: { certificateRefs: [{ name: 'site-cert' }] } }],
    },
  };
  const p = new Planner(fleet);
  apply(p, f.added('c1', objects.gatewayClass, https, objects.route, service, slice));
  p.applyEvent({ cluster: 'c1', kind: 'Secret', type: 'ADDED', object: f.tlsSecret('unrelated') });
  assert.equal(p.hasDirty, false, 'a Secret nothing names changes nothing');
  p.applyEvent({ cluster: 'c1', kind: 'Secret', type: 'ADDED', object: f.tlsSecret('site-cert') });
  assert.equal(p.hasDirty, true, "the listener's certificate Secret redoes the translation");
  p.planDirty();
  assert.ok(
    p.desiredState('lb')!.certificates.some((c) => c.secret.name === 'site-cert'),
    'and its certificate is served',
  );
});
