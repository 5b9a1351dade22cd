import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApplianceConfig } from '@portolan/fleet-config';
import * as f from '../../testing/fixtures.ts';
import { planEvents, summarize } from '../../testing/summary.ts';
import { poolNameOf } from './ingress-intent.ts';
import { loadmasterMonitor } from './annotation-schemas.ts';

/** LoadMaster's documented behaviour: Ingress mode (a VS per Ingress, SubVS per backend) and Service mode (Real Servers on an existing VS). */
const BASE = [
  f.ingressClass('portolan', 'portolan.dev/ingress-controller'),
  f.service('web', [[undefined, 80]]),
  f.slice('web-1', 'web', undefined, 8080, [['10.1.0.1'], ['10.1.0.2']]),
];
const POOL = 'pool default~web~80 [10.1.0.1:8080@c1 10.1.0.2:8080@c1]';

function ing(
  name: string,
  annotations: Record<string, string>,
  o: { created?: number; host?: string; className?: string | null } = {},
) {
  const host = o.host ?? 'a.example.com';
  return f.ingress({
    name,
    created: f.at(o.created ?? 0),
    annotations,
    className: o.className === undefined ? 'portolan' : o.className,
    rules: [f.rule(host, ['/', 'Prefix', 'web', 80])],
  });
}
/** An Ingress with rules for a.example.com (listed under TLS, Secret `tls`) and c.example.com (not). */
function tls(name: string, annotations: Record<string, string>, created = 0) {
  return f.ingress({
    name,
    created: f.at(created),
    annotations,
    className: 'portolan',
    rules: [f.rule('a.example.com', ['/', 'Prefix', 'web', 80]), f.rule('c.example.com', ['/', 'Prefix', 'web', 80])],
    tls: [{ hosts: ['a.example.com'], secretName: 'tls' }],
  });
}
const ROUTE = (name: string, host = 'a.example.com'): string =>
  `  ${host}/ Prefix -> default~web~80 (c1/default/${name})`;

const INGRESS_MODE: {
  name: string;
  objects: Record<string, unknown>[];
  appliance?: Partial<ApplianceConfig>;
  want: string[];
}[] = [
  {
    name: 'kemp.ax/vsip and kemp.ax/vsport: one Virtual Service for the Ingress',
    objects: [ing('a', { 'kemp.ax/vsip': '10.0.0.4', 'kemp.ax/vsport': '8080', 'kemp.ax/vsprot': 'tcp' })],
    want: [
      'vs 10.0.0.4~8080 http dedicated:10.0.0.4 owners=c1/default/a',
      ROUTE('a'),
      POOL,
      'Accepted c1/default/a Planned',
    ],
  },
  {
    name: "no kemp.ax/vsip: the profile's default address",
    objects: [ing('a', {})],
    want: ['vs default~80 http default owners=c1/default/a', ROUTE('a'), POOL, 'Accepted c1/default/a Planned'],
  },
  {
    name: 'no kemp.ax/vsip and no default address: rejected',
    objects: [ing('a', {})],
    appliance: { loadmaster: { url: 'https://lm.example', apiKeyFile: 'k' } } as Partial<ApplianceConfig>,
    want: ['Rejected c1/default/a NoDefaultAddress'],
  },
  {
    name: 'kemp.ax/vsprot udp cannot carry HTTP Ingress traffic',
    objects: [ing('a', { 'kemp.ax/vsip': '10.0.0.4', 'kemp.ax/vsprot': 'udp' })],
    want: ['Rejected c1/default/a UnsupportedProtocol'],
  },
  {
    name: 'one VS (ip:port) per Ingress: a newer Ingress on the same ip:port is refused; another port is fine',
    objects: [
      ing('a', { 'kemp.ax/vsip': '10.0.0.4' }, { created: 1 }),
      ing('b', { 'kemp.ax/vsip': '10.0.0.4' }, { created: 2, host: 'b.example.com' }),
      ing('c', { 'kemp.ax/vsip': '10.0.0.4', 'kemp.ax/vsport': '8080' }, { created: 3, host: 'c.example.com' }),
    ],
    want: [
      'vs 10.0.0.4~80 http dedicated:10.0.0.4 owners=c1/default/a',
      ROUTE('a'),
      'vs 10.0.0.4~8080 http dedicated:10.0.0.4 owners=c1/default/c',
      ROUTE('c', 'c.example.com'),
      POOL,
      'Accepted c1/default/a Planned',
      'Rejected c1/default/b AddressInUse',
      'Accepted c1/default/c Planned',
    ],
  },
  {
    name: 'loadmaster.portolan.dev/shared-vs: a master Ingress and newer ones share one VS',
    objects: [
      ing('a', { 'kemp.ax/vsip': '10.0.0.4', 'loadmaster.portolan.dev/shared-vs': 'true' }, { created: 1 }),
      ing(
        'b',
        { 'kemp.ax/vsip': '10.0.0.4', 'loadmaster.portolan.dev/shared-vs': 'true' },
        { created: 2, host: 'b.example.com' },
      ),
    ],
    want: [
      'vs 10.0.0.4~80 http shared:10.0.0.4 owners=c1/default/a,c1/default/b',
      ROUTE('a'),
      ROUTE('b', 'b.example.com'),
      POOL,
      'Accepted c1/default/a Planned',
      'Accepted c1/default/b Planned',
    ],
  },
  {
    name: 'check and persistence JSON configure the SubVS health check and Persist; ssl-reencrypt sets SSLReencrypt',
    objects: [
      ing('a', {
        'kemp.ax/vsip': '10.0.0.4',
        'loadmaster.portolan.dev/check': '{"type":"http","url":"/healthz","codes":"200 301"}',
        'loadmaster.portolan.dev/persistence': '{"type":"src"}',
        'loadmaster.portolan.dev/ssl-reencrypt': 'true',
      }),
    ],
    want: (() => {
      const pool = poolNameOf(
        'default',
        { service: 'web', port: 80 },
        {
          monitor: loadmasterMonitor({ type: 'http', url: '/healthz', codes: '200 301' }),
          persistence: { type: 'source-ip', cookie: '', vendor: { type: 'src' } },
          tlsToBackend: true,
          customization: null,
        },
      );
      return [
        'vs 10.0.0.4~80 http dedicated:10.0.0.4 owners=c1/default/a',
        `  a.example.com/ Prefix -> ${pool} (c1/default/a)`,
        `pool ${pool} monitor=http:/healthz persist=source-ip tls [10.1.0.1:8080@c1 10.1.0.2:8080@c1]`,
        'Accepted c1/default/a Planned',
      ];
    })(),
  },
  {
    name: 'a TLS section adds an HTTPS VS on 443; every rule is still served by the HTTP VS on 80',
    objects: [tls('a', { 'kemp.ax/vsip': '10.0.0.4' }), f.tlsSecret('tls', 'cd'.repeat(32))],
    want: [
      'vs 10.0.0.4~443 https dedicated:10.0.0.4 owners=c1/default/a certs=c1~default~tls',
      ROUTE('a'),
      ROUTE('a', 'c.example.com'),
      'vs 10.0.0.4~80 http dedicated:10.0.0.4 owners=c1/default/a',
      ROUTE('a'),
      ROUTE('a', 'c.example.com'),
      POOL,
      'cert c1~default~tls cdcdcd hosts=a.example.com',
      'Accepted c1/default/a Planned',
    ],
  },
  {
    name: 'ssl-redirect with TLS: the port-80 VS redirects to the HTTPS VS (a LoadMaster VS redirects as a whole)',
    objects: [
      tls('a', { 'kemp.ax/vsip': '10.0.0.4', 'loadmaster.portolan.dev/ssl-redirect': 'true' }),
      f.tlsSecret('tls', 'cd'.repeat(32)),
    ],
    want: [
      'vs 10.0.0.4~443 https dedicated:10.0.0.4 owners=c1/default/a certs=c1~default~tls',
      ROUTE('a'),
      ROUTE('a', 'c.example.com'),
      'vs 10.0.0.4~80 http dedicated:10.0.0.4 owners=c1/default/a redirect=443',
      POOL,
      'cert c1~default~tls cdcdcd hosts=a.example.com',
      'Accepted c1/default/a Planned',
    ],
  },
  {
    name: 'the HTTP VS of a TLS Ingress is dedicated to an older Ingress: served over HTTPS only, with a warning',
    objects: [
      ing('old', { 'kemp.ax/vsip': '10.0.0.4' }, { created: 1, host: 'b.example.com' }),
      tls('a', { 'kemp.ax/vsip': '10.0.0.4' }, 2),
      f.tlsSecret('tls', 'cd'.repeat(32)),
    ],
    want: [
      'vs 10.0.0.4~443 https dedicated:10.0.0.4 owners=c1/default/a certs=c1~default~tls',
      ROUTE('a'),
      ROUTE('a', 'c.example.com'),
      'vs 10.0.0.4~80 http dedicated:10.0.0.4 owners=c1/default/old',
      ROUTE('old', 'b.example.com'),
      POOL,
      'cert c1~default~tls cdcdcd hosts=a.example.com',
      'Accepted c1/default/a Planned',
      'Warning c1/default/a HttpPortInUse',
      'Accepted c1/default/old Planned',
    ],
  },
  {
    name: 'the legacy class annotation kempLB selects the Ingress',
    objects: [ing('a', { 'kubernetes.io/ingress.class': 'kempLB', 'kemp.ax/vsip': '10.0.0.4' }, { className: null })],
    want: [
      'vs 10.0.0.4~80 http dedicated:10.0.0.4 owners=c1/default/a',
      ROUTE('a'),
      POOL,
      'Accepted c1/default/a Planned',
    ],
  },
];

for (const row of INGRESS_MODE) {
  test(`LoadMaster Ingress mode: ${row.name}`, () => {
    const cfg = f.fleet([{ name: 'c1' }], [{ ...f.appliance('lb', 'loadmaster'), ...row.appliance }]);
    assert.deepEqual(summarize(planEvents(cfg, f.added('c1', ...BASE, ...row.objects))), row.want);
  });
}

const SERVICE_MODE_LM = {
  loadmaster: { url: 'https://lm.example', apiKeyFile: 'k', mode: 'service' },
} as Partial<ApplianceConfig>;
const opted = (
  name: string,
  annotations: Record<string, string>,
  ports: [string | undefined, number][] = [[undefined, 80]],
  created = 0,
) => f.service(name, ports, { labels: { kempLB: 'Enabled' }, annotations, created: f.at(created) });

const SERVICE_MODE: { name: string; objects: Record<string, unknown>[]; want: string[] }[] = [
  {
    name: 'a Service labelled kempLB: Enabled with vsid feeds that existing Virtual Service with its pods',
    objects: [opted('api', { vsid: '12' }), f.slice('api-1', 'api', undefined, 9090, [['10.2.0.1'], ['10.2.0.2']])],
    want: ['binding 12 c1/default/api [10.2.0.1:9090@c1 10.2.0.2:9090@c1]', 'Accepted c1/default/api Bound'],
  },
  {
    name: 'kemp.ax/vsip and kemp.ax/vsport name the Virtual Service by address instead',
    objects: [
      opted('api', { 'kemp.ax/vsip': '10.0.0.4', 'kemp.ax/vsport': '443' }),
      f.slice('api-1', 'api', undefined, 9090, [['10.2.0.1']]),
    ],
    want: ['binding 10.0.0.4:443:tcp c1/default/api [10.2.0.1:9090@c1]', 'Accepted c1/default/api Bound'],
  },
  {
    name: 'Services without the label, and Ingresses, are not planned in Service mode',
    objects: [
      f.service('other', [[undefined, 80]], { annotations: { vsid: '3' } }),
      ing('a', { 'kemp.ax/vsip': '10.0.0.4' }),
    ],
    want: [],
  },
  {
    name: 'an opted-in Service without a Virtual Service reference is rejected',
    objects: [opted('api', {})],
    want: ['Rejected c1/default/api MissingVirtualService'],
  },
  {
    name: 'two Services on one Virtual Service: the older keeps it, the newer is refused',
    objects: [
      opted('old', { vsid: '12' }, [[undefined, 80]], 1),
      opted('new', { vsid: '12' }, [[undefined, 80]], 2),
      f.slice('old-1', 'old', undefined, 9090, [['10.2.0.1']]),
      f.slice('new-1', 'new', undefined, 9090, [['10.3.0.1']]),
    ],
    want: [
      'binding 12 c1/default/old [10.2.0.1:9090@c1]',
      'Rejected c1/default/new VirtualServiceInUse',
      'Accepted c1/default/old Bound',
    ],
  },
  {
    name: 'a multi-port Service must say which port feeds the Virtual Service',
    objects: [
      opted('api', { vsid: '12' }, [
        ['http', 80],
        ['admin', 9000],
      ]),
      opted('api2', { vsid: '13', 'loadmaster.portolan.dev/service-port': 'admin' }, [
        ['http', 80],
        ['admin', 9000],
      ]),
      f.slice('api2-1', 'api2', 'admin', 9900, [['10.4.0.1']]),
    ],
    want: [
      'binding 13 c1/default/api2 [10.4.0.1:9900@c1]',
      'Rejected c1/default/api AmbiguousServicePort',
      'Accepted c1/default/api2 Bound',
    ],
  },
  {
    name: 'Kemp VS-parameter annotations are reported as ignored: a pre-existing Virtual Service is never modified',
    objects: [opted('api', { vsid: '12', checkhost: 'x', addvia: '1' })],
    want: [
      'binding 12 c1/default/api []',
      'Accepted c1/default/api Bound',
      'Warning c1/default/api VirtualServiceParametersIgnored',
    ],
  },
];

for (const row of SERVICE_MODE) {
  test(`LoadMaster Service mode: ${row.name}`, () => {
    const cfg = f.fleet([{ name: 'c1' }], [{ ...f.appliance('lb', 'loadmaster'), ...SERVICE_MODE_LM }]);
    assert.deepEqual(summarize(planEvents(cfg, f.added('c1', ...BASE, ...row.objects))), row.want);
  });
}
