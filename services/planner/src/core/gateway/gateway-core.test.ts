import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attachHttpRoute, attachedRouteCounts, type AttachContext, type ManagedGateway } from './attach.ts';
import { judgeListeners } from './listeners.ts';
import { compareEntries, routeEntries } from './precedence.ts';
import { ReferenceGrants } from './reference-grants.ts';
import {
  GATEWAY_GROUP,
  type GatewayInput,
  type HttpRouteInput,
  type HttpRouteMatch,
  type ListenerInput,
  type ReferenceGrantInput,
} from './gateway-types.ts';

const listener = (over: Partial<ListenerInput> & { name: string }): ListenerInput => ({
  hostname: '',
  port: 80,
  protocol: 'HTTP',
  tls: null,
  allowedRoutes: { from: 'Same', selector: {}, kinds: [] },
  ...over,
});

const gateway = (listeners: ListenerInput[], namespace = 'infra'): GatewayInput => ({
  namespace,
  name: 'gw',
  generation: 1,
  gatewayClassName: 'portolan',
  listeners,
});

const match = (
  type: HttpRouteMatch['path']['type'],
  value: string,
  more: Partial<HttpRouteMatch> = {},
): HttpRouteMatch => ({
  path: { type, value },
  headers: [],
  queryParams: [],
  method: '',
  ...more,
});

const route = (over: Partial<HttpRouteInput> & { name: string }): HttpRouteInput => ({
  namespace: 'infra',
  generation: 1,
  creationTimestamp: '2026-01-01T00:00:00Z',
  parentRefs: [{ group: GATEWAY_GROUP, kind: 'Gateway', namespace: '', name: 'gw', sectionName: '', port: 0 }],
  hostnames: [],
  rules: [{ matches: [], filters: [], backendRefs: [backend('web')] }],
  ...over,
});

function backend(name: string, namespace = '', weight = 1) {
  return { group: '', kind: 'Service', namespace, name, port: 8080, weight };
}

function context(gw: GatewayInput, grants: ReferenceGrantInput[] = [], services = ['infra/web']): AttachContext {
  const g = new ReferenceGrants(grants);
  const managed: ManagedGateway = { gateway: gw, listeners: judgeListeners(gw, g, () => '') };
  return {
    gateways: new Map([[`${gw.namespace}/${gw.name}`, managed]]),
    grants: g,
    namespaceLabels: (ns): Record<string, string> => (ns === 'team-a' ? { team: 'a' } : {}),
    serviceExists: (ns, name) => services.includes(`${ns}/${name}`),
  };
}

const reasons = (conds: readonly { type: string; status: string; reason: string }[]) =>
  Object.fromEntries(conds.map((c) => [c.type, `${c.status}/${c.reason}`]));

test('listeners: unsupported protocols, conflicts on a port, and certificates across namespaces', () => {
  const secretRef = (namespace: string) => ({ group: '', kind: 'Secret', namespace, name: 'cert' });
  const gw = gateway([
    listener({ name: 'http', port: 80 }),
    listener({ name: 'http-dup', port: 80 }),
    listener({ name: 'tcp', port: 9000, protocol: 'TCP' }),
    listener({ name: 'mixed', port: 443, protocol: 'HTTP' }),
    listener({
      name: 'https',
      port: 443,
      protocol: 'HTTPS',
      tls: { mode: 'Terminate', certificateRefs: [secretRef('certs')] },
    }),
    listener({
      name: 'own',
      port: 8443,
      protocol: 'HTTPS',
      tls: { mode: 'Terminate', certificateRefs: [secretRef('')] },
    }),
  ]);
  const judged = judgeListeners(gw, new ReferenceGrants([]), (ns, name) =>
    ns === 'infra' && name === 'cert' ? '' : 'not found',
  );
  const byName = Object.fromEntries(judged.map((j) => [j.listener.name, reasons(j.conditions)]));
  assert.equal(byName['http']!['Conflicted'], 'True/HostnameConflict');
  assert.equal(byName['tcp']!['Accepted'], 'False/UnsupportedProtocol');
  assert.equal(byName['mixed']!['Conflicted'], 'True/ProtocolConflict');
  assert.equal(byName['https']!['ResolvedRefs'], 'False/RefNotPermitted', 'another namespace needs a grant');
  assert.deepEqual(byName['own'], {
    Accepted: 'True/Accepted',
    ResolvedRefs: 'True/ResolvedRefs',
    Conflicted: 'False/NoConflicts',
    Programmed: 'True/Programmed',
  });
  const granted = judgeListeners(
    gw,
    new ReferenceGrants([
      {
        namespace: 'certs',
        from: [{ group: GATEWAY_GROUP, kind: 'Gateway', namespace: 'infra' }],
        to: [{ group: '', kind: 'Secret', name: '' }],
      },
    ]),
    () => '',
  );
  assert.equal(
    reasons(granted.find((j) => j.listener.name === 'https')!.conditions)['ResolvedRefs'],
    'True/ResolvedRefs',
  );
});

test('attachment: each way a parent refuses a route has its upstream reason; attached routes are counted', () => {
  const gw = gateway([
    listener({ name: 'shop', hostname: 'shop.example.com' }),
    listener({ name: 'any-ns', port: 8080, allowedRoutes: { from: 'Selector', selector: { team: 'a' }, kinds: [] } }),
  ]);
  const ctx = context(gw, [], ['infra/web', 'team-a/web']);
  const parent = (sectionName: string) => [
    { group: GATEWAY_GROUP, kind: 'Gateway', namespace: 'infra', name: 'gw', sectionName, port: 0 },
  ];
  const cases: [HttpRouteInput, string, string][] = [
    [route({ name: 'ok', hostnames: ['shop.example.com'] }), 'True/Accepted', 'True/ResolvedRefs'],
    [
      route({ name: 'no-host', hostnames: ['other.example.com'], parentRefs: parent('shop') }),
      'False/NoMatchingListenerHostname',
      'True/ResolvedRefs',
    ],
    [route({ name: 'no-section', parentRefs: parent('nope') }), 'False/NoMatchingParent', 'True/ResolvedRefs'],
    [
      route({ name: 'other-ns', namespace: 'team-b', parentRefs: parent('shop') }),
      'False/NotAllowedByListeners',
      'False/BackendNotFound',
    ],
    [
      route({ name: 'selected', namespace: 'team-a', parentRefs: parent('any-ns') }),
      'True/Accepted',
      'True/ResolvedRefs',
    ],
    [
      route({ name: 'cross', rules: [{ matches: [], filters: [], backendRefs: [backend('web', 'team-a')] }] }),
      'True/Accepted',
      'False/RefNotPermitted',
    ],
    [
      route({
        name: 'kind',
        rules: [
          { matches: [], filters: [], backendRefs: [{ ...backend('web'), group: 'example.com', kind: 'Thing' }] },
        ],
      }),
      'True/Accepted',
      'False/InvalidKind',
    ],
  ];
  const all = [];
  for (const [r, accepted, resolved] of cases) {
    const statuses = attachHttpRoute(r, ctx);
    all.push(statuses);
    assert.equal(statuses.length, 1, r.name);
    assert.deepEqual(reasons(statuses[0]!.conditions), { Accepted: accepted, ResolvedRefs: resolved }, r.name);
  }
  // ok, cross and kind name no listener: only shop takes them (any-ns selects team-a); selected is on any-ns.
  assert.deepEqual(Object.fromEntries(attachedRouteCounts(all)), { 'infra/gw/shop': 3, 'infra/gw/any-ns': 1 });
  // A route whose two parentRefs both pick listener shop counts once there.
  const twice = route({
    name: 'twice',
    hostnames: ['shop.example.com'],
    parentRefs: [...parent('shop'), ...parent('')],
  });
  assert.equal(attachedRouteCounts([attachHttpRoute(twice, ctx)]).get('infra/gw/shop'), 1);
  // A route naming a Gateway this controller does not manage gets no status from it.
  assert.deepEqual(
    attachHttpRoute(route({ name: 'foreign', parentRefs: [{ ...parent('')[0]!, name: 'theirs' }] }), ctx),
    [],
  );
});

test('precedence: hostname, then path kind and length, method, headers, query, age, name, rule order', () => {
  const gw = gateway([listener({ name: 'http' })]);
  const ctx = context(gw);
  const r = (name: string, created: string, matches: HttpRouteMatch[], hostnames: string[] = []) =>
    route({
      name,
      creationTimestamp: created,
      hostnames,
      rules: [{ matches, filters: [], backendRefs: [backend('web')] }],
    });
  const routes = [
    r('any-prefix', '2026-01-01T00:00:00Z', [match('PathPrefix', '/')]),
    r('wild', '2026-01-01T00:00:00Z', [match('PathPrefix', '/')], ['*.example.com']),
    r('exact-host', '2026-01-03T00:00:00Z', [match('PathPrefix', '/')], ['a.example.com']),
    r('long-prefix', '2026-01-01T00:00:00Z', [match('PathPrefix', '/shop/cart')]),
    r('exact', '2026-01-02T00:00:00Z', [match('Exact', '/')]),
    r('regex', '2026-01-02T00:00:00Z', [match('RegularExpression', '/s.*')]),
    r('method', '2026-01-02T00:00:00Z', [match('PathPrefix', '/shop', { method: 'GET' })]),
    r('headers', '2026-01-02T00:00:00Z', [
      match('PathPrefix', '/shop', { headers: [{ type: 'Exact', name: 'x', value: '1' }] }),
    ]),
    r('plain', '2026-01-02T00:00:00Z', [match('PathPrefix', '/shop')]),
    r('plain-older', '2026-01-01T00:00:00Z', [match('PathPrefix', '/shop')]),
    r('b-same-age', '2026-01-01T00:00:00Z', [match('PathPrefix', '/shop')]),
  ];
  const entries = routes.flatMap((rt) =>
    attachHttpRoute(rt, ctx).flatMap((s) => s.attachments.flatMap((a) => routeEntries(rt, a))),
  );
  assert.deepEqual(
    entries.sort(compareEntries).map((e) => e.route.name),
    [
      'exact-host',
      'wild',
      'exact',
      'regex',
      'long-prefix',
      'method',
      'headers',
      'b-same-age',
      'plain-older',
      'plain',
      'any-prefix',
    ],
  );
});
