import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as f from '../../testing/fixtures.ts';
import { planEvents, summarize } from '../../testing/summary.ts';

/** One bad Ingress never blocks the others: each class of malformed or oversized Ingress is rejected alone, with a machine-readable reason. */
const CLASS = f.ingressClass('portolan', 'portolan.dev/ingress-controller');
const cfg = f.fleet([{ name: 'c1' }], [f.appliance('lb', 'haproxy')]);
const raw = (name: string, spec: Record<string, unknown>, annotations?: Record<string, string>) => ({
  kind: 'Ingress',
  metadata: {
    name,
    namespace: 'default',
    resourceVersion: f.nextRv(),
    creationTimestamp: f.at(1),
    ...(annotations ? { annotations } : {}),
  },
  spec: { ingressClassName: 'portolan', ...spec },
});
const path = (backend: unknown, extra: Record<string, unknown> = {}) => ({
  rules: [{ host: 'x.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend, ...extra }] } }],
});

const TABLE: { name: string; ingress: Record<string, unknown>; reason: string }[] = [
  { name: 'no rules and no default backend', ingress: raw('bad', {}), reason: 'NoBackends' },
  {
    name: 'backend without a Service name',
    ingress: raw('bad', path({ service: { port: { number: 80 } } })),
    reason: 'InvalidBackend',
  },
  {
    name: 'Service name that is not a DNS label',
    ingress: raw('bad', path({ service: { name: 'Web_1', port: { number: 80 } } })),
    reason: 'InvalidBackend',
  },
  {
    name: 'port by number and by name',
    ingress: raw('bad', path({ service: { name: 'web', port: { number: 80, name: 'http' } } })),
    reason: 'InvalidBackend',
  },
  {
    name: 'port number out of range',
    ingress: raw('bad', path({ service: { name: 'web', port: { number: 70000 } } })),
    reason: 'InvalidBackend',
  },
  {
    name: 'resource backend',
    ingress: raw('bad', path({ resource: { apiGroup: 'k8s.example.com', kind: 'Bucket', name: 'b' } })),
    reason: 'ResourceBackendUnsupported',
  },
  {
    name: 'unknown pathType',
    ingress: raw('bad', path({ service: { name: 'web', port: { number: 80 } } }, { pathType: 'Regex' })),
    reason: 'InvalidPathType',
  },
  {
    name: 'relative path',
    ingress: raw('bad', path({ service: { name: 'web', port: { number: 80 } } }, { path: 'api' })),
    reason: 'InvalidPath',
  },
  {
    name: 'IP literal host',
    ingress: raw('bad', {
      rules: [
        {
          host: '10.0.0.1',
          http: {
            paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }],
          },
        },
      ],
    }),
    reason: 'HostIsIPAddress',
  },
  {
    name: 'invalid TLS host',
    ingress: raw('bad', {
      ...path({ service: { name: 'web', port: { number: 80 } } }),
      tls: [{ hosts: ['*.*.example.com'], secretName: 's' }],
    }),
    reason: 'InvalidWildcard',
  },
  {
    name: 'invalid Secret name',
    ingress: raw('bad', {
      ...path({ service: { name: 'web', port: { number: 80 } } }),
      tls: [{ hosts: ['x.example.com'], secretName: 'Bad_Secret' }],
    }),
    reason: 'InvalidSecretName',
  },
  {
    name: 'more rules than the cap',
    ingress: raw('bad', {
      rules: Array.from({ length: 1001 }, (_, i) => ({
        host: `h${i}.example.com`,
        http: {
          paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }],
        },
      })),
    }),
    reason: 'TooLarge',
  },
  {
    name: 'a 300 KiB annotation',
    ingress: raw('bad', path({ service: { name: 'web', port: { number: 80 } } }), {
      'example.com/blob': 'x'.repeat(300 * 1024),
    }),
    reason: 'TooLarge',
  },
  {
    name: 'an annotation JSON over 16 KiB',
    ingress: raw('bad', path({ service: { name: 'web', port: { number: 80 } } }), {
      'portolan.dev/monitor': `{"type":"http","path":"/${'a'.repeat(17000)}"}`,
    }),
    reason: 'InvalidAnnotationJson',
  },
  {
    name: 'fields of the wrong type everywhere',
    ingress: {
      kind: 'Ingress',
      metadata: { name: 'bad', namespace: 'default', resourceVersion: f.nextRv() },
      spec: { ingressClassName: 'portolan', rules: 'nope', tls: 7, defaultBackend: [] },
    },
    reason: 'NoBackends',
  },
];

for (const row of TABLE) {
  test(`bad input rejected alone: ${row.name} → ${row.reason}`, () => {
    const good = f.ingress({
      name: 'good',
      created: f.at(0),
      rules: [f.rule('good.example.com', ['/', 'Prefix', 'web', 80])],
    });
    const d = planEvents(cfg, f.added('c1', CLASS, f.service('web', [[undefined, 80]]), good, row.ingress));
    const lines = summarize(d);
    assert.deepEqual(
      lines.filter((l) => l.includes('/default/bad')),
      [`Rejected c1/default/bad ${row.reason}`],
    );
    assert.deepEqual(
      lines.filter((l) => !l.includes('/default/bad')),
      [
        'vs default~80 http default owners=c1/default/good',
        '  good.example.com/ Prefix -> default~web~80 (c1/default/good)',
        'pool default~web~80 []',
        'Accepted c1/default/good Planned',
      ],
    );
  });
}

test('every validation error of one Ingress is reported, each with the field it concerns', () => {
  const d = planEvents(
    cfg,
    f.added(
      'c1',
      CLASS,
      raw('bad', {
        rules: [
          {
            host: '*.*.x.com',
            http: {
              paths: [{ path: 'a', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }],
            },
          },
          {
            host: 'ok.x.com',
            http: { paths: [{ path: '/', pathType: 'Exact', backend: { service: { port: { number: 1 } } } }] },
          },
        ],
      }),
    ),
  );
  assert.deepEqual(
    d.conditions.map((c) => `${c.reason}: ${c.message}`),
    [
      'InvalidBackend: spec.rules[1].http.paths[0].backend.service.name is missing',
      'InvalidWildcard: spec.rules[0].host: host "*.*.x.com": "*" may only be the whole first label',
    ],
  );
});
