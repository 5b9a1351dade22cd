// The Gateway API kinds as the API server with the v1.3.0 CRDs treats writes of them: defaults, schema validation,
// CEL rules, status and generation rules, unknown fields, and one storage for every served version.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiResult } from './api-error.ts';
import { prepareCreate, prepareUpdate, type DecodeOptions } from './object-strategy.ts';
import { findResourceType, gatewayGroup, type KubeObject, type ResourceType } from './resource-types.ts';

function typeOf(plural: string, version = 'v1'): ResourceType {
  const type = findResourceType(gatewayGroup, version, plural);
  assert.ok(type !== undefined, `${plural} ${version} is served`);
  return type;
}

const allocators = { allocateClusterIp: () => '10.96.0.1', allocateNodePort: () => 30000 };

function create(plural: string, body: KubeObject, version = 'v1', options: DecodeOptions = {}): ApiResult<KubeObject> {
  const ctx = {
    ...allocators,
    ...options,
    namespace: 'default',
    now: '2024-05-01T10:00:00Z',
    uid: 'u-1',
    nameSuffix: 'x',
  };
  return prepareCreate(typeOf(plural, version), body, ctx);
}

function created(plural: string, body: KubeObject, version = 'v1'): KubeObject {
  const result = create(plural, body, version);
  assert.ok(result.ok, result.ok ? '' : result.error.message);
  return result.value;
}

function update(
  plural: string,
  old: KubeObject,
  body: KubeObject,
  subresource: 'status' | '' = '',
): ApiResult<KubeObject> {
  const ctx = { ...allocators, namespace: 'default', name: old.metadata?.name ?? '', subresource };
  return prepareUpdate(typeOf(plural), old, body, ctx);
}

/** The field errors of a refused write, as `field: message` lines. */
function causes(result: ApiResult<KubeObject>): string[] {
  assert.equal(result.ok, false, 'the write is refused');
  if (result.ok) return [];
  assert.equal(result.error.code, 422, result.error.message);
  const details = result.error.details as { causes: { field: string; message: string }[] };
  return details.causes.map((c) => `${c.field}: ${c.message}`);
}

const gateway = (listeners: unknown[], extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: `${gatewayGroup}/v1`,
  kind: 'Gateway',
  metadata: { name: 'web' },
  spec: { gatewayClassName: 'portolan', listeners, ...extra },
});

const route = (rules: unknown[], extra: Record<string, unknown> = {}): KubeObject => ({
  metadata: { name: 'web' },
  spec: { parentRefs: [{ name: 'web' }], rules, ...extra },
});

const blocked =
  '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';

describe('defaults the CRD schemas apply', () => {
  it('Gateway: allowedRoutes from Same, TLS Terminate with Secret references, pending status conditions', () => {
    const tls = { certificateRefs: [{ name: 'web-tls' }] };
    const gw = created('gateways', gateway([{ name: 'https', port: 443, protocol: 'HTTPS', tls }]));
    const spec = gw['spec'] as { listeners: Record<string, unknown>[] };
    assert.deepEqual(spec.listeners[0], {
      allowedRoutes: { namespaces: { from: 'Same' } },
      name: 'https',
      port: 443,
      protocol: 'HTTPS',
      tls: { certificateRefs: [{ group: '', kind: 'Secret', name: 'web-tls' }], mode: 'Terminate' },
    });
    const status = gw['status'] as { conditions: { type: string; status: string; reason: string }[] };
    assert.deepEqual(
      status.conditions.map((c) => `${c.type}=${c.status}/${c.reason}`),
      ['Accepted=Unknown/Pending', 'Programmed=Unknown/Pending'],
    );
    assert.equal(gw.metadata?.generation, 1);
  });
  it('HTTPRoute: a PathPrefix "/" match, weight 1 Service backends, Gateway parents, Exact headers, 302', () => {
    const rt = created(
      'httproutes',
      route([
        {
          matches: [{ headers: [{ name: 'x-env', value: 'prod' }] }],
          backendRefs: [{ name: 'web', port: 80 }],
        },
        { filters: [{ type: 'RequestRedirect', requestRedirect: { scheme: 'https' } }] },
      ]),
    );
    const spec = rt['spec'] as { rules: Record<string, unknown>[]; parentRefs: unknown[] };
    assert.deepEqual(spec.parentRefs, [{ group: gatewayGroup, kind: 'Gateway', name: 'web' }]);
    assert.deepEqual(spec.rules[0], {
      backendRefs: [{ group: '', kind: 'Service', name: 'web', port: 80, weight: 1 }],
      matches: [
        { headers: [{ name: 'x-env', type: 'Exact', value: 'prod' }], path: { type: 'PathPrefix', value: '/' } },
      ],
    });
    assert.deepEqual(spec.rules[1], {
      filters: [{ requestRedirect: { scheme: 'https', statusCode: 302 }, type: 'RequestRedirect' }],
      matches: [{ path: { type: 'PathPrefix', value: '/' } }],
    });
    assert.equal(rt['status'], undefined);
    const bare = created('httproutes', { metadata: { name: 'bare' }, spec: {} });
    assert.deepEqual(bare['spec'], { rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/' } }] }] });
  });
  it('a write through v1beta1 is stored as v1; GatewayClass gets its pending Accepted condition', () => {
    const gc = created(
      'gatewayclasses',
      { metadata: { name: 'portolan' }, spec: { controllerName: 'portolan.dev/gateway' } },
      'v1beta1',
    );
    assert.equal(gc.apiVersion, `${gatewayGroup}/v1`);
    assert.equal((gc['status'] as { conditions: { type: string }[] }).conditions[0]?.type, 'Accepted');
    assert.equal(gc.metadata?.namespace, undefined);
  });
});

// This describe only groups short, independent cases of one rule each: its length is their number.
describe('Gateway validation', () => {
  it('requires the class and listeners, and a listener name, port and protocol', () => {
    const result = create('gateways', { metadata: { name: 'web' }, spec: { listeners: [{ port: 80 }] } });
    assert.deepEqual(causes(result), [
      'spec.gatewayClassName: Required value',
      'spec.listeners[0].name: Required value',
      'spec.listeners[0].protocol: Required value',
      blocked,
    ]);
    assert.match(
      result.ok ? '' : result.error.message,
      /^Gateway\.gateway\.networking\.k8s\.io "web" is invalid: \[spec\.gatewayClassName: Required value, /,
    );
  });
  it('bounds ports, listener count and hostnames; enumerates TLS modes', () => {
    assert.deepEqual(causes(create('gateways', gateway([{ name: 'a', port: 65536, protocol: 'HTTP' }]))), [
      'spec.listeners[0].port: Invalid value: 65536: spec.listeners[0].port in body should be less than or equal to 65535',
    ]);
    const many = Array.from({ length: 65 }, (_, i) => ({ name: `l${i}`, port: 1000 + i, protocol: 'HTTP' }));
    assert.deepEqual(causes(create('gateways', gateway(many))), [
      'spec.listeners: Too many: 65: must have at most 64 items',
      blocked,
    ]);
    const bad = [{ name: 'a', port: 443, protocol: 'TLS', hostname: 'Web.Example.com', tls: { mode: 'Bogus' } }];
    assert.deepEqual(causes(create('gateways', gateway(bad))), [
      `spec.listeners[0].hostname: Invalid value: "Web.Example.com": spec.listeners[0].hostname in body should match '^(\\*\\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$'`,
      'spec.listeners[0].tls.mode: Unsupported value: "Bogus": supported values: "Terminate", "Passthrough"',
      blocked,
    ]);
  });
  it('applies the listener rules: unique names and endpoints, TLS only where the protocol takes it', () => {
    const listeners = [
      { name: 'http', port: 80, protocol: 'HTTP', tls: { mode: 'Passthrough' } },
      { name: 'http', port: 80, protocol: 'HTTP' },
      { name: 'tls', port: 443, protocol: 'HTTPS', tls: { mode: 'Passthrough' } },
      { name: 'tcp', port: 9000, protocol: 'TCP', hostname: 'db.example.com' },
    ];
    assert.deepEqual(causes(create('gateways', gateway(listeners))), [
      'spec.listeners[1]: Duplicate value: map[string]interface {}{"name":"http"}',
      `spec.listeners: Invalid value: "array": tls must not be specified for protocols ['HTTP', 'TCP', 'UDP']`,
      'spec.listeners: Invalid value: "array": tls mode must be Terminate for protocol HTTPS',
      `spec.listeners: Invalid value: "array": hostname must not be specified for protocols ['TCP', 'UDP']`,
      'spec.listeners: Invalid value: "array": Listener name must be unique within the Gateway',
      'spec.listeners: Invalid value: "array": Combination of port, protocol and hostname must be unique for each listener',
    ]);
  });
  it('a Terminate listener needs certificates or options (an absent list is a CEL evaluation error)', () => {
    const result = create('gateways', gateway([{ name: 'https', port: 443, protocol: 'HTTPS', tls: {} }]));
    assert.deepEqual(causes(result), [
      'spec.listeners[0].tls: Invalid value: "object": no such key: certificateRefs evaluating rule: certificateRefs or options must be specified when mode is Terminate',
    ]);
    const withOptions = { options: { 'portolan.dev/cert': 'auto' } };
    assert.ok(create('gateways', gateway([{ name: 'https', port: 443, protocol: 'HTTPS', tls: withOptions }])).ok);
  });
});

// This describe only groups short, independent cases of one rule each: its length is their number.
describe('route validation', () => {
  it('enumerates path, header and filter types; bounds weights and rule counts', () => {
    const rules = [
      {
        matches: [{ path: { type: 'Regex', value: '/a' }, headers: [{ name: 'x', type: 'Prefix', value: 'v' }] }],
        filters: [{ type: 'Rewrite' }],
        backendRefs: [{ name: 'web', port: 80, weight: 1000001 }],
      },
    ];
    assert.deepEqual(causes(create('httproutes', route(rules))), [
      'spec.rules[0].backendRefs[0].weight: Invalid value: 1000001: spec.rules[0].backendRefs[0].weight in body should be less than or equal to 1000000',
      'spec.rules[0].filters[0].type: Unsupported value: "Rewrite": supported values: "RequestHeaderModifier", "ResponseHeaderModifier", "RequestMirror", "RequestRedirect", "URLRewrite", "ExtensionRef"',
      'spec.rules[0].matches[0].headers[0].type: Unsupported value: "Prefix": supported values: "Exact", "RegularExpression"',
      'spec.rules[0].matches[0].path.type: Unsupported value: "Regex": supported values: "Exact", "PathPrefix", "RegularExpression"',
      blocked,
    ]);
    const tooMany = Array.from({ length: 17 }, () => ({ backendRefs: [{ name: 'web', port: 80 }] }));
    assert.deepEqual(causes(create('httproutes', route(tooMany))), [
      'spec.rules: Too many: 17: must have at most 16 items',
      blocked,
    ]);
  });
  it('requires backend names and a port for a Service, and valid hostnames', () => {
    assert.deepEqual(causes(create('httproutes', route([{ backendRefs: [{ port: 80 }] }], { hostnames: ['*'] }))), [
      `spec.hostnames[0]: Invalid value: "*": spec.hostnames[0] in body should match '^(\\*\\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$'`,
      'spec.rules[0].backendRefs[0].name: Required value',
      blocked,
    ]);
    assert.deepEqual(causes(create('httproutes', route([{ backendRefs: [{ name: 'web' }] }]))), [
      'spec.rules[0].backendRefs[0]: Invalid value: "object": Must have port for Service reference',
    ]);
  });
  it('applies the path and filter rules', () => {
    const rules = [
      {
        matches: [{ path: { type: 'Exact', value: 'api//v1' } }],
        filters: [
          { type: 'RequestHeaderModifier', requestHeaderModifier: { set: [{ name: 'a', value: 'b' }] } },
          { type: 'RequestHeaderModifier', requestHeaderModifier: { remove: ['c'] } },
          { type: 'RequestRedirect', requestRedirect: { scheme: 'https' } },
          { type: 'URLRewrite', urlRewrite: { hostname: 'new.example.com' } },
        ],
        backendRefs: [{ name: 'web', port: 80 }],
      },
    ];
    assert.deepEqual(causes(create('httproutes', route(rules))), [
      'spec.rules[0]: Invalid value: "object": RequestRedirect filter must not be used together with backendRefs',
      'spec.rules[0].filters: Invalid value: "array": May specify either httpRouteFilterRequestRedirect or httpRouteFilterRequestRewrite, but not both',
      'spec.rules[0].filters: Invalid value: "array": RequestHeaderModifier filter cannot be repeated',
      `spec.rules[0].matches[0].path: Invalid value: "object": value must be an absolute path and start with '/' when type one of ['Exact', 'PathPrefix']`,
      `spec.rules[0].matches[0].path: Invalid value: "object": must not contain '//' when type one of ['Exact', 'PathPrefix']`,
    ]);
    const mismatched = [{ filters: [{ type: 'URLRewrite', requestRedirect: {} }] }];
    assert.deepEqual(causes(create('httproutes', route(mismatched))), [
      'spec.rules[0].filters[0]: Invalid value: "object": filter.requestRedirect must be nil if the filter.type is not RequestRedirect',
      'spec.rules[0].filters[0]: Invalid value: "object": filter.urlRewrite must be specified for URLRewrite filter.type',
    ]);
  });
  it('GRPCRoute, TLSRoute and ReferenceGrant rules', () => {
    const grpc = route([{ matches: [{ method: { type: 'Exact' } }], backendRefs: [{ name: 'grpc', port: 9000 }] }]);
    assert.deepEqual(causes(create('grpcroutes', grpc)), [
      `spec.rules[0].matches[0].method: Invalid value: "object": One or both of 'service' or 'method' must be specified`,
    ]);
    assert.deepEqual(causes(create('tlsroutes', route([{ backendRefs: [] }]), 'v1alpha2')), [
      'spec.rules[0].backendRefs: Invalid value: 0: spec.rules[0].backendRefs in body should have at least 1 items',
    ]);
    const grant = { metadata: { name: 'g' }, spec: { from: [{ group: '', kind: 'HTTPRoute' }], to: [] } };
    assert.deepEqual(causes(create('referencegrants', grant, 'v1beta1')), [
      'spec.from[0].namespace: Required value',
      'spec.to: Invalid value: 0: spec.to in body should have at least 1 items',
      blocked,
    ]);
  });
});

describe('updates, status and fields the schema does not declare', () => {
  const listeners = [{ name: 'http', port: 80, protocol: 'HTTP' }];
  const stored = (): KubeObject => ({
    ...created('gateways', gateway(listeners)),
    metadata: { name: 'web', uid: 'u-1', generation: 1 },
  });
  it('a spec change moves the generation; a main write keeps the stored status', () => {
    const old = stored();
    const next = update('gateways', old, { ...gateway([{ name: 'http', port: 8080, protocol: 'HTTP' }]), status: {} });
    assert.ok(next.ok);
    assert.equal(next.value.metadata?.generation, 2);
    assert.deepEqual(next.value['status'], old['status']);
  });
  it('a status write changes only status, keeps the generation, and is validated', () => {
    const old = stored();
    const addresses = [{ value: '192.0.2.7' }];
    const next = update('gateways', old, { ...gateway([]), status: { addresses } }, 'status');
    assert.ok(next.ok, next.ok ? '' : next.error.message);
    assert.equal(next.value.metadata?.generation, 1);
    assert.deepEqual((next.value['spec'] as { listeners: unknown[] }).listeners.length, 1);
    assert.deepEqual((next.value['status'] as { addresses: unknown }).addresses, [
      { type: 'IPAddress', value: '192.0.2.7' },
    ]);
    const badCondition = { conditions: [{ type: 'Programmed', status: 'Yes', reason: 'Done', message: '' }] };
    assert.deepEqual(causes(update('gateways', old, { status: badCondition }, 'status')), [
      'status.conditions[0].lastTransitionTime: Required value',
      'status.conditions[0].status: Unsupported value: "Yes": supported values: "True", "False", "Unknown"',
      blocked,
    ]);
  });
  it('a GatewayClass controllerName is immutable', () => {
    const gc = created('gatewayclasses', { metadata: { name: 'p' }, spec: { controllerName: 'portolan.dev/a' } });
    const moved = { metadata: { name: 'p' }, spec: { controllerName: 'portolan.dev/b' } };
    assert.deepEqual(causes(update('gatewayclasses', { ...gc, metadata: { name: 'p', uid: 'u-1' } }, moved)), [
      'spec.controllerName: Invalid value: "string": Value is immutable',
    ]);
  });
  it('unknown fields are pruned with a warning, or refused under Strict', () => {
    const body = gateway(listeners, { extra: true });
    const warnings: string[] = [];
    const warned = create('gateways', body, 'v1', { warnings });
    assert.ok(warned.ok);
    assert.equal((warned.value['spec'] as Record<string, unknown>)['extra'], undefined);
    assert.deepEqual(warnings, ['unknown field "spec.extra"']);
    const strict = create('gateways', body, 'v1', { fieldValidation: 'Strict' });
    assert.equal(strict.ok, false);
    assert.deepEqual(strict.ok ? null : [strict.error.code, strict.error.message], [
      400,
      'Gateway in version "v1" cannot be handled as a Gateway: strict decoding error: unknown field "spec.extra"',
    ]);
  });
});
