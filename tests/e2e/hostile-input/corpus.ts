// The hostile-input corpus: objects the Kubernetes API accepts but that are bad for a load balancer — regexes
// JavaScript accepts and PCRE2 refuses, TLS material that does not parse or match, prototype keys, annotations of
// every kind with wrong values, sizes and names at and past the limits. Each entry names the object that must carry
// the condition (as a Kubernetes Event) and its reason.

/** One bad input: the objects to apply in the corpus namespace, and where its condition must show. */
export interface HostileEntry {
  readonly name: string;
  /** Kubernetes objects (JSON-able), applied together. */
  readonly objects: readonly Record<string, unknown>[];
  /** The object whose Events must carry `reason` (kind/name in the corpus namespace). */
  readonly on: { readonly kind: 'Ingress'; readonly name: string };
  readonly reason: RegExp;
  /** The host the bad Ingress asks for: it must not serve the bad part (checked where the entry says so). */
  readonly appliance: 'edge' | 'vtm';
  /**
   * How long the good Ingress beside it may take (default 10 s). Only what planning cannot know gets more: the
   * appliance refuses the whole configuration first, and the applier bisects it with several `haproxy -c` runs.
   */
  readonly liveWithinMs?: number;
}

/** TLS material for Secrets, made by the runner (openssl) so no key is committed. */
export interface Material {
  readonly crt: string;
  readonly key: string;
  readonly otherKey: string;
  /** A certificate that names only `elsewhere.example.org`. */
  readonly wrongNameCrt: string;
  readonly wrongNameKey: string;
  /** An RSA-1024 certificate: it parses and matches its key, but HAProxy's OpenSSL refuses a key that small. */
  readonly weakCrt: string;
  readonly weakKey: string;
}

export const NS = 'corpus';
const b64 = (s: string): string => Buffer.from(s).toString('base64');

function ingress(
  name: string,
  o: {
    className?: string;
    annotations?: Record<string, string>;
    rules?: unknown[];
    tls?: unknown[];
    defaultBackend?: unknown;
  } = {},
): Record<string, unknown> {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name, namespace: NS, annotations: o.annotations ?? {} },
    spec: {
      ingressClassName: o.className ?? 'portolan',
      ...(o.rules === undefined ? { rules: [rule(`${name}.bad.example.com`)] } : { rules: o.rules }),
      ...(o.tls === undefined ? {} : { tls: o.tls }),
      ...(o.defaultBackend === undefined ? {} : { defaultBackend: o.defaultBackend }),
    },
  };
}
function rule(
  host: string,
  paths: { path: string; pathType?: string; service?: string; port?: number | string }[] = [{ path: '/' }],
): Record<string, unknown> {
  return {
    host,
    http: {
      paths: paths.map((p) => ({
        path: p.path,
        pathType: p.pathType ?? 'Prefix',
        backend: {
          service: {
            name: p.service ?? 'web',
            port: typeof p.port === 'string' ? { name: p.port } : { number: p.port ?? 80 },
          },
        },
      })),
    },
  };
}
function secret(name: string, data: Record<string, string>, type = 'kubernetes.io/tls'): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: NS }, type, data };
}
const on = (name: string) => ({ kind: 'Ingress' as const, name });

/** An entry whose single bad Ingress carries one annotation. */
function annotated(
  name: string,
  annotation: string,
  value: string,
  reason: RegExp,
  appliance: 'edge' | 'vtm' = 'edge',
): HostileEntry {
  const className = appliance === 'vtm' ? 'vtm' : 'portolan';
  const vtmAddress: Record<string, string> =
    appliance === 'vtm' ? { 'vtm.pulsesecure.net/ip-address': '10.9.77.1' } : {};
  return {
    name,
    objects: [ingress(name, { className, annotations: { ...vtmAddress, [annotation]: value } })],
    on: on(name),
    reason,
    appliance,
  };
}

/** TLS entries: the Secret and the Ingress that uses it. */
function tlsEntry(
  name: string,
  data: Record<string, string>,
  reason: RegExp,
  o: { type?: string; appliance?: 'edge' | 'vtm' } = {},
): HostileEntry {
  const appliance = o.appliance ?? 'edge';
  const host = `${name}.bad.example.com`;
  const annotations: Record<string, string> =
    appliance === 'vtm' ? { 'vtm.pulsesecure.net/ip-address': '10.9.77.2' } : {};
  return {
    name,
    objects: [
      secret(`${name}-tls`, data, o.type),
      ingress(name, {
        className: appliance === 'vtm' ? 'vtm' : 'portolan',
        annotations,
        tls: [{ hosts: [host], secretName: `${name}-tls` }],
      }),
    ],
    on: on(name),
    reason,
    appliance,
  };
}

const MONITOR = 'portolan.dev/monitor';
const PERSISTENCE = 'portolan.dev/persistence';
const INVALID_JSON = /InvalidAnnotationJson/;

/** The corpus; `m` is TLS material the runner made. */
export function hostileCorpus(m: Material): HostileEntry[] {
  const garbagePem = b64('-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n');
  return [
    // Regexes JavaScript accepts and HAProxy's PCRE2 refuses (or reads differently).
    annotated('re-empty-class', MONITOR, '{"type":"http","expectStatus":"^2[^]0$"}', INVALID_JSON),
    annotated('re-unicode-escape', MONITOR, '{"type":"http","expectStatus":"^\\\\u0032"}', INVALID_JSON),
    annotated('re-lookbehind', MONITOR, '{"type":"http","expectStatus":"(?<=a+)b"}', INVALID_JSON),
    annotated('re-unclosed', MONITOR, '{"type":"http","expectStatus":"(2"}', INVALID_JSON),
    annotated('re-huge-repeat', MONITOR, '{"type":"http","expectStatus":"2{5000}"}', INVALID_JSON),
    annotated('re-backreference', MONITOR, '{"type":"http","expectStatus":"(2)\\\\1"}', INVALID_JSON),
    annotated('re-posix-class', MONITOR, '{"type":"http","expectStatus":"[[:digit:]]"}', INVALID_JSON),
    annotated(
      're-vtm-monitor',
      'vtm.pulsesecure.net/monitor',
      '{"properties":{"basic":{"type":"http"},"http":{"status_regex":"^2[^]0$"}}}',
      INVALID_JSON,
      'vtm',
    ),
    // Monitor and persistence JSON: unknown keys, prototype keys, wrong types, bad names.
    annotated('mon-path-quote', MONITOR, '{"type":"http","path":"/x\'y"}', INVALID_JSON),
    annotated('mon-path-hash', MONITOR, '{"type":"http","path":"/x#y"}', INVALID_JSON),
    annotated('mon-unknown-key', MONITOR, '{"type":"http","script":"rm -rf /"}', INVALID_JSON),
    annotated('mon-proto-key', MONITOR, '{"type":"http","__proto__":{"polluted":true}}', INVALID_JSON),
    annotated(
      'mon-constructor',
      MONITOR,
      '{"type":"http","constructor":{"prototype":{"polluted":true}}}',
      INVALID_JSON,
    ),
    annotated('mon-not-json', MONITOR, '{type: http}', INVALID_JSON),
    annotated('mon-bad-type', MONITOR, '{"type":"ftp"}', INVALID_JSON),
    annotated('mon-interval', MONITOR, '{"type":"http","intervalSeconds":0}', INVALID_JSON),
    annotated('mon-float', MONITOR, '{"type":"http","failures":2.5}', INVALID_JSON),
    annotated('mon-host-header', MONITOR, '{"type":"http","hostHeader":"a b\\r\\nX-Evil: 1"}', INVALID_JSON),
    annotated('mon-too-deep', MONITOR, `${'{"a":'.repeat(40)}1${'}'.repeat(40)}`, INVALID_JSON),
    annotated('mon-too-long', MONITOR, `{"type":"http","path":"/${'a'.repeat(17_000)}"}`, /InvalidAnnotation/),
    annotated('persist-cookie-space', PERSISTENCE, '{"type":"cookie","cookie":"a b"}', INVALID_JSON),
    annotated('persist-cookie-semicolon', PERSISTENCE, '{"type":"cookie","cookie":"x;Domain=evil"}', INVALID_JSON),
    annotated('persist-type', PERSISTENCE, '{"type":"magic"}', INVALID_JSON),
    annotated('persist-proto', PERSISTENCE, '{"type":"cookie","__proto__":{"admin":true}}', INVALID_JSON),
    // Plain annotations with wrong values.
    annotated('ann-ssl-redirect', 'portolan.dev/ssl-redirect', 'maybe', /InvalidAnnotation/),
    annotated('ann-listen-port', 'portolan.dev/listen-port', '99999', /InvalidAnnotation/),
    annotated('ann-backend-protocol', 'portolan.dev/backend-protocol', 'gopher', /InvalidAnnotation/),
    annotated(
      'ann-vtm-trafficscript',
      'vtm.pulsesecure.net/request-trafficscript',
      'http.redirect("http://evil")',
      /TrafficScriptDisabled/,
      'vtm',
    ),
    annotated(
      'ann-vtm-customization',
      'vtm.pulsesecure.net/pool-customization',
      '{"properties":{"basic":{"monitors":["evil"]}}}',
      /InvalidAnnotationJson|CustomizationsDisabled/,
      'vtm',
    ),
    // TLS Secrets an appliance would refuse.
    tlsEntry('tls-garbage', { 'tls.crt': garbagePem, 'tls.key': m.key }, /InvalidCertificate/),
    tlsEntry('tls-mismatch', { 'tls.crt': m.crt, 'tls.key': m.otherKey }, /InvalidCertificate/),
    tlsEntry('tls-empty', { 'tls.crt': '', 'tls.key': '' }, /InvalidCertificate/),
    tlsEntry('tls-key-garbage', { 'tls.crt': m.crt, 'tls.key': b64('junk') }, /InvalidCertificate/),
    // Only TLS Secrets are watched: an Opaque one is, to the pipeline, not there.
    tlsEntry('tls-opaque', { 'tls.crt': m.crt, 'tls.key': m.key }, /SecretNotFound/, { type: 'Opaque' }),
    tlsEntry('tls-wrong-name', { 'tls.crt': m.wrongNameCrt, 'tls.key': m.wrongNameKey }, /CertificateHostMismatch/),
    // Planning cannot know this one: HAProxy refuses it, the applier finds it by bisection, the planner leaves it out.
    {
      ...tlsEntry('tls-weak-key', { 'tls.crt': m.weakCrt, 'tls.key': m.weakKey }, /InvalidCertificate/),
      liveWithinMs: 30_000,
    },
    tlsEntry('tls-vtm-mismatch', { 'tls.crt': m.crt, 'tls.key': m.otherKey }, /InvalidCertificate/, {
      appliance: 'vtm',
    }),
    tlsEntry('tls-vtm-garbage', { 'tls.crt': garbagePem, 'tls.key': m.key }, /InvalidCertificate/, {
      appliance: 'vtm',
    }),
    {
      name: 'tls-missing-secret',
      appliance: 'edge',
      on: on('tls-missing-secret'),
      reason: /SecretNotFound/,
      objects: [
        ingress('tls-missing-secret', {
          tls: [{ hosts: ['tls-missing-secret.bad.example.com'], secretName: 'nowhere' }],
        }),
      ],
    },
    // Backends that lead nowhere.
    {
      name: 'be-missing-service',
      appliance: 'edge',
      on: on('be-missing-service'),
      reason: /ServiceNotFound/,
      objects: [
        ingress('be-missing-service', {
          rules: [rule('be-missing-service.bad.example.com', [{ path: '/', service: 'ghost' }])],
        }),
      ],
    },
    {
      name: 'be-named-port',
      appliance: 'edge',
      on: on('be-named-port'),
      reason: /ServicePortNotFound/,
      objects: [
        ingress('be-named-port', { rules: [rule('be-named-port.bad.example.com', [{ path: '/', port: 'grpc' }])] }),
      ],
    },
    {
      name: 'be-external-name',
      appliance: 'edge',
      on: on('be-external-name'),
      reason: /ExternalNameService/,
      objects: [
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: 'outside', namespace: NS },
          spec: { type: 'ExternalName', externalName: 'evil.example.org' },
        },
        ingress('be-external-name', {
          rules: [rule('be-external-name.bad.example.com', [{ path: '/', service: 'outside' }])],
        }),
      ],
    },
    {
      name: 'be-resource',
      appliance: 'edge',
      on: on('be-resource'),
      reason: /ResourceBackendUnsupported/,
      objects: [
        {
          ...ingress('be-resource'),
          spec: {
            ingressClassName: 'portolan',
            rules: [
              {
                host: 'be-resource.bad.example.com',
                http: {
                  paths: [
                    {
                      path: '/',
                      pathType: 'Prefix',
                      backend: { resource: { apiGroup: 'k8s.example.com', kind: 'Bucket', name: 'b' } },
                    },
                  ],
                },
              },
            ],
          },
        },
      ],
    },
    // Rules, paths, sizes and names at and past the limits.
    {
      name: 'rule-no-paths',
      appliance: 'edge',
      on: on('rule-no-paths'),
      reason: /RuleWithoutPaths|NoBackends/,
      objects: [ingress('rule-no-paths', { rules: [{ host: 'rule-no-paths.bad.example.com' }] })],
    },
    {
      name: 'path-duplicate',
      appliance: 'edge',
      on: on('path-duplicate'),
      reason: /DuplicatePath/,
      objects: [
        ingress('path-duplicate', {
          rules: [rule('path-duplicate.bad.example.com', [{ path: '/a' }, { path: '/a', service: 'other' }])],
        }),
      ],
    },
    {
      name: 'path-hash',
      appliance: 'edge',
      on: on('path-hash'),
      reason: /InvalidPath/,
      objects: [
        ingress('path-hash', {
          rules: [rule('path-hash.bad.example.com', [{ path: '/a#b', pathType: 'ImplementationSpecific' }])],
        }),
      ],
    },
    {
      name: 'path-space',
      appliance: 'edge',
      on: on('path-space'),
      reason: /InvalidPath/,
      objects: [
        ingress('path-space', {
          rules: [rule('path-space.bad.example.com', [{ path: '/a b', pathType: 'ImplementationSpecific' }])],
        }),
      ],
    },
    {
      name: 'path-too-long',
      appliance: 'edge',
      on: on('path-too-long'),
      reason: /InvalidPath/,
      objects: [
        ingress('path-too-long', {
          rules: [rule('path-too-long.bad.example.com', [{ path: `/${'p'.repeat(5000)}` }])],
        }),
      ],
    },
    {
      name: 'too-many-rules',
      appliance: 'edge',
      on: on('too-many-rules'),
      reason: /TooLarge/,
      objects: [
        ingress('too-many-rules', {
          rules: Array.from({ length: 1001 }, (_, i) => rule(`r${i}.too-many-rules.example.com`)),
        }),
      ],
    },
    {
      name: 'too-many-paths',
      appliance: 'edge',
      on: on('too-many-paths'),
      reason: /TooLarge/,
      objects: [
        ingress('too-many-paths', {
          rules: [
            rule(
              'too-many-paths.bad.example.com',
              Array.from({ length: 5001 }, (_, i) => ({ path: `/p${i}` })),
            ),
          ],
        }),
      ],
    },
  ];
}
