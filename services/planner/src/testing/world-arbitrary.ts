import fc from 'fast-check';
import type { KubeKind, KubeWatchEvent } from '@portolan/kube-model';
import * as f from './fixtures.ts';

/**
 * fast-check generators of realistic world histories: Ingresses (valid and adversarial), classes, Services,
 * EndpointSlices, Secrets and Nodes in two clusters, mutated, deleted and re-created with increasing
 * resourceVersions, as a watcher would publish them.
 */

type Obj = Record<string, unknown>;

const HOSTS = ['a.example.com', 'B.example.com', '*.example.com', '', 'xn--bcher-kva.example', 'bücher.example'];
const BAD_HOSTS = ['10.0.0.1', '*.*.x.com', 'pаypal.com', 'a b'];
const PATHS: [string, string][] = [
  ['/', 'Prefix'],
  ['/api', 'Prefix'],
  ['/api/', 'Prefix'],
  ['/api', 'Exact'],
  ['/static', 'ImplementationSpecific'],
];
const BAD_PATHS: [string, string][] = [
  ['api', 'Prefix'],
  ['/x', 'Regex'],
  ['/a?b', 'Exact'],
];
const SERVICES = ['s1', 's2', 's3'];
const NAMESPACES = ['n1', 'n2'];
const NAMES = ['i1', 'i2', 'i3'];
const IPS = ['10.0.0.5', '10.0.0.6'];

const annotation = fc.oneof(
  fc.constant<[string, string]>(['portolan.dev/ssl-redirect', 'true']),
  fc.constant<[string, string]>(['portolan.dev/ssl-passthrough', 'true']),
  fc.constant<[string, string]>(['portolan.dev/monitor', '{"type":"http","path":"/h"}']),
  fc.constant<[string, string]>(['portolan.dev/monitor', '{"type":"http","__proto__":{}}']),
  fc.constant<[string, string]>(['portolan.dev/listen-port', '8443']),
  fc.constantFrom(...IPS).map((ip): [string, string] => ['vtm.pulsesecure.net/ip-address', ip]),
  fc.constantFrom(...IPS).map((ip): [string, string] => ['vtm.pulsesecure.net/shared-ip-address', ip]),
  fc.constantFrom(...IPS).map((ip): [string, string] => ['kemp.ax/vsip', ip]),
  fc.constant<[string, string]>(['loadmaster.portolan.dev/shared-vs', 'true']),
  fc.constant<[string, string]>(['ingress.kubernetes.io/ssl-redirect', 'true']),
  fc.constant<[string, string]>(['vtm.pulsesecure.net/use-lets-encrypt', 'true']),
  fc.constant<[string, string]>(['vtm.pulsesecure.net/port', '80']),
  fc.constant<[string, string]>(['vtm.pulsesecure.net/re-encrypt', 'maybe']),
  fc.constant<[string, string]>([
    'vtm.pulsesecure.net/persistence',
    '{"properties":{"basic":{"type":"cookie","cookie":"C"}}}',
  ]),
  fc.constant<[string, string]>([
    'vtm.pulsesecure.net/pool-customization',
    '{"properties":{"basic":{"passive_monitoring":false}}}',
  ]),
  fc.constant<[string, string]>(['vtm.pulsesecure.net/request-trafficscript', 'http.addHeader("A","B");']),
  fc.constant<[string, string]>(['kubernetes.io/ingress.class', 'vtm']),
);

/** An Ingress spec: mostly valid, sometimes with adversarial hosts, paths or backends (`invalid` forces one). */
export function ingressArb(invalid: boolean | null = null): fc.Arbitrary<(rv: string) => Obj> {
  const host =
    invalid === true
      ? fc.constantFrom(...BAD_HOSTS)
      : invalid === false
        ? fc.constantFrom(...HOSTS)
        : fc.oneof(
            { weight: 9, arbitrary: fc.constantFrom(...HOSTS) },
            { weight: 1, arbitrary: fc.constantFrom(...BAD_HOSTS) },
          );
  const path =
    invalid === false
      ? fc.constantFrom(...PATHS)
      : fc.oneof(
          { weight: 9, arbitrary: fc.constantFrom(...PATHS) },
          { weight: invalid === true ? 0 : 1, arbitrary: fc.constantFrom(...BAD_PATHS) },
        );
  const backend = fc.tuple(fc.constantFrom(...SERVICES), fc.constantFrom<number | string>(80, 'http'));
  return fc
    .record({
      namespace: fc.constantFrom(...NAMESPACES),
      name: fc.constantFrom(...NAMES),
      created: fc.integer({ min: 0, max: 3 }),
      className: fc.constantFrom<string | null>('portolan', 'vtm', 'other', null),
      rules: fc.array(fc.record({ host, paths: fc.array(fc.tuple(path, backend), { minLength: 1, maxLength: 3 }) }), {
        minLength: invalid === true ? 1 : 0,
        maxLength: 3,
      }),
      defaultBackend: fc.option(backend, { nil: undefined }),
      tls: fc.option(
        fc.record({
          hosts: fc.array(fc.constantFrom(...HOSTS.filter((h) => h !== '')), { maxLength: 2 }),
          secretName: fc.constantFrom('t1', 't2'),
        }),
        { nil: undefined },
      ),
      annotations: invalid === false ? fc.constant([] as [string, string][]) : fc.array(annotation, { maxLength: 3 }),
    })
    .map((o) => (rv: string) => {
      const ing = f.ingress({
        name: o.name,
        namespace: o.namespace,
        created: f.at(o.created),
        className: o.className,
        annotations: Object.fromEntries(o.annotations),
        rules: o.rules.map((r) =>
          f.rule(
            r.host === '' ? undefined : r.host,
            ...r.paths.map(([[p, t], [svc, port]]): [string, string, string, number | string] => [p, t, svc, port]),
          ),
        ),
        ...(o.tls ? { tls: [o.tls] } : {}),
        ...(o.defaultBackend ? { defaultBackend: f.backend(o.defaultBackend[0], o.defaultBackend[1]) } : {}),
      });
      (ing['metadata'] as Obj)['resourceVersion'] = rv;
      return ing;
    });
}

const endpoint = fc.tuple(
  fc.constantFrom('10.1.0.1', '10.1.0.2', '10.1.0.3'),
  fc.boolean(),
  fc.boolean(),
  fc.boolean(),
  fc.constantFrom('n1', 'n2', 'n3'),
);

/** One object of any kind, as a function of its resourceVersion. */
const objectArb: fc.Arbitrary<{ kind: KubeKind; make: (rv: string) => Obj }> = fc.oneof(
  { weight: 4, arbitrary: ingressArb().map((make) => ({ kind: 'Ingress' as const, make })) },
  {
    weight: 3,
    arbitrary: fc
      .record({
        svc: fc.constantFrom(...SERVICES),
        ns: fc.constantFrom(...NAMESPACES),
        n: fc.integer({ min: 0, max: 1 }),
        eps: fc.array(endpoint, { maxLength: 4 }),
        named: fc.boolean(),
      })
      .map((o) => ({
        kind: 'EndpointSlice' as const,
        make: (rv: string) =>
          withRv(
            f.slice(`${o.svc}-${o.n}`, o.svc, o.named ? 'http' : undefined, o.named ? 9090 : 8080, o.eps as f.Ep[], {
              namespace: o.ns,
            }),
            rv,
          ),
      })),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({
        svc: fc.constantFrom(...SERVICES),
        ns: fc.constantFrom(...NAMESPACES),
        type: fc.constantFrom('ClusterIP', 'NodePort', 'ExternalName'),
        local: fc.boolean(),
        lm: fc.constantFrom<Record<string, string> | null>(null, { vsid: '7' }, { vsid: '8' }),
      })
      .map((o) => ({
        kind: 'Service' as const,
        make: (rv: string) =>
          withRv(
            f.service(
              o.svc,
              [
                [undefined, 80, 30080],
                ['http', 8080, 30081],
              ],
              {
                namespace: o.ns,
                type: o.type,
                ...(o.local ? { externalTrafficPolicy: 'Local' } : {}),
                ...(o.lm
                  ? {
                      labels: { kempLB: 'Enabled' },
                      annotations: { ...o.lm, 'loadmaster.portolan.dev/service-port': 'http' },
                    }
                  : {}),
              },
            ),
            rv,
          ),
      })),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({
        name: fc.constantFrom('t1', 't2'),
        ns: fc.constantFrom(...NAMESPACES),
        fp: fc.constantFrom('aa', 'bb'),
        type: fc.constantFrom('kubernetes.io/tls', 'Opaque'),
      })
      .map((o) => ({
        kind: 'Secret' as const,
        make: (rv: string) => withRv(f.tlsSecret(o.name, o.fp.repeat(32), { namespace: o.ns, type: o.type }), rv),
      })),
  },
  {
    weight: 1,
    arbitrary: fc.record({ name: fc.constantFrom('n1', 'n2', 'n3'), ready: fc.boolean() }).map((o) => ({
      kind: 'Node' as const,
      make: (rv: string) => withRv(f.node(o.name, `192.168.0.${o.name.slice(1)}`, o.ready), rv),
    })),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({
        name: fc.constantFrom('portolan', 'vtm'),
        isDefault: fc.boolean(),
        controller: fc.constantFrom(
          'portolan.dev/ingress-controller',
          'pulsesecure.net/vtm-ingress-controller',
          'k8s.io/ingress-nginx',
        ),
      })
      .map((o) => ({
        kind: 'IngressClass' as const,
        make: (rv: string) => withRv(f.ingressClass(o.name, o.controller, o.isDefault), rv),
      })),
  },
);

function withRv(o: Obj, rv: string): Obj {
  (o['metadata'] as Obj)['resourceVersion'] = rv;
  return o;
}

/** One step of a history: an upsert or a delete of some object in some cluster; `plan` asks for a planDirty after it. */
export interface Step {
  readonly cluster: string;
  readonly kind: KubeKind;
  readonly make: (rv: string) => Obj;
  readonly del: boolean;
  readonly plan: boolean;
}

/** A history of steps. */
export const historyArb: fc.Arbitrary<Step[]> = fc.array(
  fc
    .record({
      cluster: fc.constantFrom('c1', 'c2'),
      obj: objectArb,
      del: fc.integer({ min: 0, max: 99 }).map((n) => n < 15),
      plan: fc.boolean(),
    })
    .map((s) => ({ cluster: s.cluster, kind: s.obj.kind, make: s.obj.make, del: s.del, plan: s.plan })),
  { minLength: 1, maxLength: 30 },
);

/** A populated starting world in both clusters (classes, nodes, Services with endpoints, Secrets), resourceVersions below 100. */
export function preludeEvents(): KubeWatchEvent[] {
  let rv = 1;
  const events: KubeWatchEvent[] = [];
  const add = (cluster: string, o: Obj): void =>
    void events.push({ cluster, kind: o['kind'] as KubeKind, type: 'ADDED', object: withRv(o, String(rv++)) });
  for (const c of ['c1', 'c2']) {
    add(c, f.ingressClass('portolan', 'portolan.dev/ingress-controller', true));
    add(c, f.ingressClass('vtm', 'pulsesecure.net/vtm-ingress-controller'));
    for (const n of ['n1', 'n2', 'n3']) add(c, f.node(n, `192.168.${c.slice(1)}.${n.slice(1)}`));
    for (const ns of NAMESPACES) {
      add(c, f.tlsSecret('t1', 'aa'.repeat(32), { namespace: ns }));
      for (const svc of SERVICES) {
        add(
          c,
          f.service(
            svc,
            [
              [undefined, 80, 30080],
              ['http', 8080, 30081],
            ],
            {
              namespace: ns,
              type: 'NodePort',
              ...(svc === 's3'
                ? {
                    labels: { kempLB: 'Enabled' },
                    annotations: { vsid: ns === 'n1' ? '7' : '8', 'loadmaster.portolan.dev/service-port': '80' },
                  }
                : {}),
            },
          ),
        );
        add(
          c,
          f.slice(
            `${svc}-0`,
            svc,
            undefined,
            8080,
            [
              ['10.1.0.1', true, true, false, 'n1'],
              ['10.1.0.2', false, true, true, 'n2'],
            ],
            { namespace: ns },
          ),
        );
      }
    }
  }
  return events;
}

/** Turns a history into watch events with increasing resourceVersions (as the API server would number them), after the prelude. */
export function eventsOf(steps: readonly Step[], firstRv = 100): KubeWatchEvent[] {
  return [
    ...preludeEvents(),
    ...steps.map((s, i): KubeWatchEvent => ({
      cluster: s.cluster,
      kind: s.kind,
      type: s.del ? 'DELETED' : 'MODIFIED',
      object: s.make(String(firstRv + i)),
    })),
  ];
}

/** The fleet the properties plan for: every driver family and mode, two clusters with different weights and scopes. */
export const PROPERTY_FLEET = f.fleet(
  [{ name: 'c1' }, { name: 'c2', weight: 2, namespaces: ['n1'] }],
  [
    f.appliance('h', 'haproxy'),
    f.appliance('v', 'vtm', { backendMode: 'nodeport', enableCustomizations: true, enableTrafficScript: true }),
    f.appliance('l', 'loadmaster'),
    {
      ...f.appliance('ls', 'loadmaster'),
      loadmaster: { url: 'https://lm.example', apiKeyFile: 'k', mode: 'service' },
    } as never,
    f.appliance('h2', 'haproxy', { clusters: ['c2'] }),
  ],
);
