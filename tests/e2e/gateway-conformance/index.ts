import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { z } from 'zod';

/**
 * The Gateway API conformance tests of the GATEWAY-HTTP profile as data (this folder; README.md describes the
 * format): the types of a test file, and a loader that reads and checks every file against them and against the
 * objects the steps name.
 */

export const INFRA_NAMESPACE = 'gateway-conformance-infra';
/** Upstream's placeholder for spec.gatewayClassName; the runner puts the class under test on every Gateway. */
export const GATEWAY_CLASS_PLACEHOLDER = '{GATEWAY_CLASS_NAME}';
/** Upstream's placeholder for a GatewayClass's spec.controllerName; the runner puts the controller under test. */
export const CONTROLLER_NAME_PLACEHOLDER = '{GATEWAY_CONTROLLER_NAME}';

/** The GATEWAY-HTTP profile (conformance/utils/suite/profiles.go): its core features… */
export const CORE_FEATURES = ['Gateway', 'HTTPRoute', 'ReferenceGrant'] as const;
/** …and its extended ones (Gateway, HTTPRoute and BackendTLSPolicy extended features, pkg/features). */
export const EXTENDED_FEATURES = [
  ...['GatewayPort8080', 'GatewayStaticAddresses', 'GatewayHTTPListenerIsolation'],
  ...['GatewayHTTPSListenerDetectMisdirectedRequests', 'GatewayInfrastructurePropagation', 'GatewayAddressEmpty'],
  ...['GatewayBackendClientCertificate', 'GatewayFrontendClientCertificateValidation'],
  ...['GatewayFrontendClientCertificateValidationInsecureFallback', 'ListenerSet'],
  ...['HTTPRouteDestinationPortMatching', 'HTTPRouteBackendRequestHeaderModification', 'HTTPRouteQueryParamMatching'],
  ...['HTTPRouteMethodMatching', 'HTTPRouteResponseHeaderModification', 'HTTPRoutePortRedirect'],
  ...['HTTPRouteSchemeRedirect', 'HTTPRoutePathRedirect', 'HTTPRouteHostRewrite', 'HTTPRoutePathRewrite'],
  ...['HTTPRouteRequestMirror', 'HTTPRouteRequestMultipleMirrors', 'HTTPRouteRequestPercentageMirror'],
  ...['HTTPRouteRequestTimeout', 'HTTPRouteBackendTimeout', 'HTTPRouteParentRefPort', 'HTTPRouteBackendProtocolH2C'],
  ...['HTTPRouteBackendProtocolWebSocket', 'HTTPRouteNamedRouteRule', 'HTTPRouteCORS'],
  ...['HTTPRoute303RedirectStatusCode', 'HTTPRoute307RedirectStatusCode', 'HTTPRoute308RedirectStatusCode'],
  ...['HTTPRouteRetry', 'HTTPRouteRetryBackendTimeout', 'HTTPRouteRetryConnectionError'],
  ...['HTTPRouteBackendURLRewrite', 'HTTPRouteBackendRequestRedirect', 'BackendTLSPolicy'],
  'BackendTLSPolicySANValidation',
] as const;
export type Feature = (typeof CORE_FEATURES)[number] | (typeof EXTENDED_FEATURES)[number];

/**
 * The Secrets upstream's suite generates at setup (suite.go) that the transcribed tests use: self-signed
 * kubernetes.io/tls certificates for the given host names. The runner creates them after base.yaml.
 */
export const GENERATED_SECRETS = [
  { namespace: 'gateway-conformance-web-backend', name: 'certificate', hosts: ['*'] },
  { namespace: INFRA_NAMESPACE, name: 'tls-validity-checks-certificate', hosts: ['*', '*.org', '*.wildcard.org'] },
] as const;

const CLUSTER_SCOPED = new Set(['GatewayClass', 'Namespace']);
const name = z.string().min(1);
const headerName = z.string().regex(/^[A-Za-z0-9-]+$/, 'a header name');
const headers = z.record(headerName, z.string());
const ref = z
  .union([name, z.strictObject({ name, namespace: name.optional() })])
  .transform((r) =>
    typeof r === 'string'
      ? { name: r, namespace: INFRA_NAMESPACE }
      : { name: r.name, namespace: r.namespace ?? INFRA_NAMESPACE },
  );
export type Ref = z.output<typeof ref>;
const objectRef = z
  .strictObject({ apiVersion: name, kind: name, name, namespace: name.optional() })
  .transform((o) => (CLUSTER_SCOPED.has(o.kind) ? o : { ...o, namespace: o.namespace ?? INFRA_NAMESPACE }));
export type ObjectRef = z.output<typeof objectRef>;
const manifest = z.looseObject({
  apiVersion: name,
  kind: name,
  metadata: z.looseObject({ name, namespace: name.optional() }),
});
export type Manifest = z.output<typeof manifest>;
/** A condition to find; no status or reason means any (upstream's findConditionInList). */
const condition = z.strictObject({
  type: name,
  status: z
    .union([z.enum(['True', 'False', 'Unknown']), z.boolean().transform((b) => (b ? 'True' : 'False'))])
    .optional(),
  reason: name.optional(),
});
export type Condition = z.output<typeof condition>;

const request = z
  .strictObject({
    gateway: ref.optional(),
    scheme: z.enum(['http', 'https']).default('http'),
    host: z.string().min(1).optional(),
    path: z.string().startsWith('/').default('/'),
    method: z
      .string()
      .regex(/^[A-Z]+$/)
      .default('GET'),
    headers: headers.default({}),
    followRedirects: z.boolean().default(true),
    echoResponseHeaders: headers.default({}),
    tls: z.strictObject({ serverName: name, certificateSecret: ref }).optional(),
  })
  .refine((r) => (r.scheme === 'https') === (r.tls !== undefined), 'an https request, and only one, names its tls');
const expectation = z
  .strictObject({
    status: z.number().int().min(100).max(599).default(200),
    backend: name.optional(),
    namespace: name.optional(),
    backendRequest: z
      .strictObject({
        host: name.optional(),
        path: z.string().startsWith('/').optional(),
        method: z
          .string()
          .regex(/^[A-Z]+$/)
          .optional(),
        headers: headers.default({}),
        absentHeaders: z.array(headerName).default([]),
      })
      .optional(),
    responseHeaders: headers.default({}),
    absentResponseHeaders: z.array(headerName).default([]),
    redirect: z
      .strictObject({
        scheme: z.enum(['http', 'https']).optional(),
        host: name.optional(),
        port: z.number().int().min(1).max(65535).optional(),
        path: z.string().startsWith('/').optional(),
      })
      .optional(),
  })
  .superRefine((e, ctx) => {
    const ok = e.status >= 200 && e.status < 300;
    if (ok && e.namespace === undefined) ctx.addIssue({ code: 'custom', message: 'a 2xx answer names its namespace' });
    const answered = [e.backend, e.namespace, e.backendRequest].some((x) => x !== undefined);
    if (!ok && (answered || Object.keys(e.responseHeaders).length > 0 || e.absentResponseHeaders.length > 0))
      ctx.addIssue({ code: 'custom', message: 'backend, request and header checks apply to a 2xx answer only' });
    if (e.redirect !== undefined && (e.status < 300 || e.status >= 400))
      ctx.addIssue({ code: 'custom', message: 'a redirect check needs a 3xx status' });
  });
export type Request = z.output<typeof request>;
export type Expectation = z.output<typeof expectation>;

const listenerStatus = z.strictObject({
  name,
  supportedKinds: z.array(z.strictObject({ group: name.default('gateway.networking.k8s.io'), kind: name })),
  attachedRoutes: z.number().int().min(0),
  conditions: z.array(condition),
});
const parentRef = z.strictObject({
  group: z.string().optional(),
  kind: name.optional(),
  namespace: name.optional(),
  name,
});

/** Each step kind: the key naming it in the data, and its body. The output is `{ kind, name?, ...body }`. */
const bodies = {
  accepted: z.strictObject({ gateway: ref, listeners: z.array(name).optional(), routes: z.array(ref).default([]) }),
  routeCondition: z.strictObject({ route: ref, gateway: ref, condition }),
  routeParents: z.strictObject({
    route: ref,
    namespaceRequired: z.boolean(),
    parents: z.array(z.strictObject({ parentRef, conditions: z.array(condition) })).min(1),
  }),
  routeNotAccepted: ref.transform((route) => ({ route })),
  gatewayCondition: z.strictObject({ gateway: ref, condition }),
  gatewayClassCondition: z.strictObject({ gatewayClass: name, condition }),
  listeners: z.strictObject({ gateway: ref, listeners: z.array(listenerStatus).min(1) }),
  zeroRoutes: ref.transform((gateway) => ({ gateway })),
  latestConditions: z
    .strictObject({ kind: z.enum(['Gateway', 'GatewayClass', 'HTTPRoute']), name, namespace: name.optional() })
    .transform((o) => ({
      object: o.kind === 'GatewayClass' ? o : { ...o, namespace: o.namespace ?? INFRA_NAMESPACE },
    })),
  namespacesReady: z
    .array(name)
    .min(1)
    .transform((namespaces) => ({ namespaces })),
  apply: z
    .array(manifest)
    .min(1)
    .transform((manifests) => ({ manifests })),
  delete: z
    .array(objectRef)
    .min(1)
    .transform((objects) => ({ objects })),
  patch: z.strictObject({
    target: objectRef,
    mergePatch: z.record(z.string(), z.unknown()),
    generationChanges: z.boolean().default(false),
  }),
  fillEndpointSlices: z.strictObject({ deployment: ref, endpointSlices: z.array(ref).min(1) }),
} as const;
const distribution = z.strictObject({
  request,
  expect: expectation,
  weights: z.record(name, z.number().min(0).max(1)),
  requests: z.number().int().min(1),
  concurrency: z.number().int().min(1),
  tolerance: z.number().min(0).max(1),
  attempts: z.number().int().min(1),
});
const requestStep = z.strictObject({ request, expect: expectation });

type Named<K, T> = { kind: K; name?: string } & T;
/** The request of a step, with the Gateway it goes through filled in (the latest `accepted` one when unnamed). */
export type ResolvedRequest = Omit<Request, 'gateway'> & { gateway: Ref };
/** An HTTP request through a Gateway and what its answer must be (upstream's ExpectedResponse). */
export type RequestStep = Named<'request', { request: ResolvedRequest; expect: Expectation }>;
/** Many requests, whose answers must spread over the backends by the weights (upstream's HTTPRouteWeight). */
export type DistributionStep = Named<
  'distribution',
  Omit<z.output<typeof distribution>, 'request'> & { request: ResolvedRequest }
>;
export type Step =
  | { [K in keyof typeof bodies]: Named<K, z.output<(typeof bodies)[K]>> }[keyof typeof bodies]
  | RequestStep
  | DistributionStep;
export type StepKind = Step['kind'];
const STEP_KINDS: readonly string[] = [...Object.keys(bodies), 'request', 'distribution'];

const testFile = z.strictObject({
  shortName: z.string().regex(/^[A-Z][A-Za-z0-9]+$/),
  description: z.string().min(1),
  features: z.array(z.enum([...CORE_FEATURES, ...EXTENDED_FEATURES])).min(1),
  provisional: z.boolean().default(false),
  parallel: z.boolean().default(false),
  upstream: z.strictObject({
    test: z.string().regex(/^conformance\/tests\/[a-z0-9-]+\.go$/),
    manifests: z.array(z.string().regex(/^conformance\/tests\/[a-z0-9-]+\.yaml$/)).min(1),
  }),
  manifests: z.array(manifest),
  steps: z.array(z.record(z.string(), z.unknown())).min(1),
});

/** One test file, checked, its steps typed and their Gateways filled in. */
export type ConformanceTest = Omit<z.output<typeof testFile>, 'steps'> & { file: string; steps: Step[] };

export function featureLevel(feature: Feature): 'core' | 'extended' {
  return (CORE_FEATURES as readonly string[]).includes(feature) ? 'core' : 'extended';
}

function check<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw new Error(`${where}:\n${z.prettifyError(r.error)}`);
  return r.data;
}

/** The manifests of base.yaml, checked. */
export function loadBase(dir: string = import.meta.dirname): Manifest[] {
  const docs = parseAllDocuments(readFileSync(path.join(dir, 'base.yaml'), 'utf8'));
  if (!Array.isArray(docs)) throw new Error('base.yaml: not a YAML stream');
  return docs.map((d, i) => {
    if (d.errors.length > 0) throw new Error(`base.yaml: document ${i}: ${d.errors[0]!.message}`);
    return check(manifest, d.toJS(), `base.yaml: document ${i}`);
  });
}

/** Every test file of `dir` (all `*.yaml` but base.yaml), in file name order, checked against the base. */
export function loadTests(dir: string = import.meta.dirname): ConformanceTest[] {
  const base = loadBase(dir);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml') && f !== 'base.yaml')
    .sort()
    .map((f) => parseTest(f, readFileSync(path.join(dir, f), 'utf8'), base));
}

/** Parses and checks one test file; unknown keys, a step of no known kind and a name no object has are errors. */
export function parseTest(file: string, text: string, base: readonly Manifest[]): ConformanceTest {
  const doc = check(testFile, parse(text), file);
  if (`${doc.shortName}.yaml` !== file) throw new Error(`${file}: the file is named after its shortName`);
  if (!doc.features.includes('Gateway')) throw new Error(`${file}: every test needs the Gateway feature`);
  if (new Set(doc.features).size !== doc.features.length) throw new Error(`${file}: a feature is listed twice`);
  const steps = doc.steps.map((s, i) => parseStep(s, `${file}: steps[${i}]`));
  return { ...doc, file, steps: resolveSteps(steps, [...base, ...doc.manifests], file) };
}

/** A step as read, before its request's Gateway is filled in. */
type Unresolved<T> = T extends { request: ResolvedRequest } ? Omit<T, 'request'> & { request: Request } : T;
type RawStep = Unresolved<Step>;

function parseStep(raw: Record<string, unknown>, where: string): RawStep {
  const { name: title, ...rest } = raw;
  if (title !== undefined && (typeof title !== 'string' || title === ''))
    throw new Error(`${where}: name must be a non-empty string`);
  const named = title === undefined ? {} : { name: title };
  const keys = Object.keys(rest);
  const kind = keys.length === 2 && keys.includes('request') && keys.includes('expect') ? 'request' : keys[0];
  if (kind === undefined || (kind !== 'request' && keys.length !== 1) || !STEP_KINDS.includes(kind))
    throw new Error(
      `${where}: a step is one of ${STEP_KINDS.join(', ')} (request with expect); got ${keys.join(', ')}`,
    );
  if (kind === 'request') return { kind, ...named, ...check(requestStep, rest, where) };
  if (kind === 'distribution') return { kind, ...named, ...check(distribution, rest[kind], `${where}.${kind}`) };
  const body = check(bodies[kind as keyof typeof bodies], rest[kind], `${where}.${kind}`);
  return { kind, ...named, ...body } as RawStep;
}

type Known = Map<string, Manifest>;
const keyOf = (kind: string, r: { name: string; namespace?: string | undefined }): string =>
  `${kind}/${CLUSTER_SCOPED.has(kind) ? '' : (r.namespace ?? '')}/${r.name}`;

function need(
  known: Known,
  kind: string,
  r: { name: string; namespace?: string | undefined },
  where: string,
): Manifest {
  const found = known.get(keyOf(kind, r));
  if (found === undefined)
    throw new Error(
      `${where}: no ${kind} ${keyOf(kind, r).slice(kind.length + 1)} in base.yaml, the test or the generated Secrets`,
    );
  return found;
}

/** Fills in each request's Gateway and checks that every object a step names exists when the step runs. */
function resolveSteps(steps: readonly RawStep[], objects: readonly Manifest[], file: string): Step[] {
  const generated = GENERATED_SECRETS.map((s) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { ...s } }));
  const known: Known = new Map([...objects, ...generated].map((o) => [keyOf(o.kind, o.metadata), o]));
  const accepted = new Set<string>();
  let latest: Ref | undefined;
  return steps.map((step, i): Step => {
    const where = `${file}: steps[${i}] (${step.kind})`;
    checkRefs(step, known, where);
    if (step.kind === 'apply') for (const m of step.manifests) known.set(keyOf(m.kind, m.metadata), m);
    if (step.kind === 'accepted') {
      latest = step.gateway;
      accepted.add(keyOf('Gateway', step.gateway));
    }
    if (step.kind !== 'request' && step.kind !== 'distribution') return step;
    const gateway = step.request.gateway ?? latest;
    if (gateway === undefined || !accepted.has(keyOf('Gateway', gateway)))
      throw new Error(`${where}: a request goes through a Gateway an earlier accepted step waited for`);
    return { ...step, request: { ...step.request, gateway } } as Step;
  });
}

function checkRefs(step: RawStep, known: Known, where: string): void {
  switch (step.kind) {
    case 'accepted': {
      const gateway = need(known, 'Gateway', step.gateway, where);
      const names = listenerNames(gateway);
      for (const l of step.listeners ?? [])
        if (!names.includes(l)) throw new Error(`${where}: Gateway ${step.gateway.name} has no listener ${l}`);
      for (const r of step.routes) need(known, 'HTTPRoute', r, where);
      return;
    }
    case 'routeCondition':
      need(known, 'Gateway', step.gateway, where);
      need(known, 'HTTPRoute', step.route, where);
      return;
    case 'routeParents':
    case 'routeNotAccepted':
      need(known, 'HTTPRoute', step.route, where);
      return;
    case 'gatewayCondition':
    case 'listeners':
    case 'zeroRoutes':
      need(known, 'Gateway', step.gateway, where);
      return;
    case 'gatewayClassCondition':
      need(known, 'GatewayClass', { name: step.gatewayClass }, where);
      return;
    case 'latestConditions':
      need(known, step.object.kind, step.object, where);
      return;
    default:
      checkOtherRefs(step, known, where);
  }
}

function checkOtherRefs(step: RawStep, known: Known, where: string): void {
  switch (step.kind) {
    case 'patch':
      need(known, step.target.kind, step.target, where);
      return;
    case 'delete':
      for (const o of step.objects) need(known, o.kind, o, where);
      return;
    case 'fillEndpointSlices':
      need(known, 'Deployment', step.deployment, where);
      for (const s of step.endpointSlices) need(known, 'EndpointSlice', s, where);
      return;
    case 'request':
    case 'distribution':
      if (step.request.gateway !== undefined) need(known, 'Gateway', step.request.gateway, where);
      if (step.request.tls !== undefined) need(known, 'Secret', step.request.tls.certificateSecret, where);
      return;
    default:
  }
}

function listenerNames(gateway: Manifest): string[] {
  const spec = gateway.spec as { listeners?: { name?: unknown }[] } | undefined;
  return (spec?.listeners ?? []).map((l) => String(l.name));
}
