import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApplianceConfig } from '@portolan/fleet-config';
import * as f from '../../testing/fixtures.ts';
import { planEvents, summarize } from '../../testing/summary.ts';
import { poolNameOf } from './ingress-intent.ts';
import { neutralMonitor } from './annotation-schemas.ts';

/** The neutral `portolan.dev/*` set on HAProxy: one shared listener pair, per-route ssl-redirect. */
const P = 'portolan.dev';
const BASE = [
  f.ingressClass('portolan', 'portolan.dev/ingress-controller'),
  f.service('web', [[undefined, 80]]),
  f.slice('web-1', 'web', undefined, 8080, [['10.1.0.1']]),
  f.tlsSecret('tls', 'cd'.repeat(32)),
];

function ing(
  name: string,
  annotations: Record<string, string>,
  o: { tls?: boolean; created?: number; host?: string; rules?: boolean; defaultBackend?: boolean } = {},
) {
  const host = o.host ?? 'a.example.com';
  return f.ingress({
    name,
    created: f.at(o.created ?? 0),
    annotations,
    ...(o.rules === false ? {} : { rules: [f.rule(host, ['/', 'Prefix', 'web', 80])] }),
    ...(o.tls ? { tls: [{ hosts: [host], secretName: 'tls' }] } : {}),
    ...(o.defaultBackend ? { defaultBackend: f.backend('web', 80) } : {}),
  });
}

/** Two rules, a.example.com (listed under TLS) and c.example.com (not). */
function twoHosts(name: string, annotations: Record<string, string>) {
  return f.ingress({
    name,
    created: f.at(0),
    annotations,
    rules: [f.rule('a.example.com', ['/', 'Prefix', 'web', 80]), f.rule('c.example.com', ['/', 'Prefix', 'web', 80])],
    tls: [{ hosts: ['a.example.com'], secretName: 'tls' }],
  });
}
const TWO_HOSTS_REDIRECTED = [
  'vs default~443 https default owners=c1/default/t certs=c1~default~tls',
  '  a.example.com/ Prefix -> default~web~80 (c1/default/t)',
  '  c.example.com/ Prefix -> default~web~80 (c1/default/t)',
  'vs default~80 http default owners=c1/default/t',
  '  a.example.com/ Prefix -> default~web~80 redirect:443 (c1/default/t)',
  '  c.example.com/ Prefix -> default~web~80 (c1/default/t)',
  'pool default~web~80 [10.1.0.1:8080@c1]',
  'cert c1~default~tls cdcdcd hosts=a.example.com',
  'Accepted c1/default/t Planned',
];

const PLAIN = { monitor: null, persistence: null, tlsToBackend: false, customization: null };
const MON = neutralMonitor({ type: 'http', path: '/healthz' });

const TABLE: {
  name: string;
  objects: Record<string, unknown>[];
  appliance?: Partial<ApplianceConfig>;
  want: string[];
}[] = [
  {
    name: 'plain and TLS Ingresses share the HTTP and HTTPS listeners of the default address',
    objects: [ing('a', {}, { created: 1 }), ing('b', {}, { created: 2, tls: true, host: 'b.example.com' })],
    want: [
      'vs default~443 https default owners=c1/default/b certs=c1~default~tls',
      '  b.example.com/ Prefix -> default~web~80 (c1/default/b)',
      'vs default~80 http default owners=c1/default/a,c1/default/b',
      '  a.example.com/ Prefix -> default~web~80 (c1/default/a)',
      '  b.example.com/ Prefix -> default~web~80 (c1/default/b)',
      'pool default~web~80 [10.1.0.1:8080@c1]',
      'cert c1~default~tls cdcdcd hosts=b.example.com',
      'Accepted c1/default/a Planned',
      'Accepted c1/default/b Planned',
    ],
  },
  {
    name: 'a TLS section adds HTTPS: every rule is served over HTTP, the TLS host also over HTTPS with its certificate',
    objects: [twoHosts('t', {})],
    want: [
      'vs default~443 https default owners=c1/default/t certs=c1~default~tls',
      '  a.example.com/ Prefix -> default~web~80 (c1/default/t)',
      '  c.example.com/ Prefix -> default~web~80 (c1/default/t)',
      'vs default~80 http default owners=c1/default/t',
      '  a.example.com/ Prefix -> default~web~80 (c1/default/t)',
      '  c.example.com/ Prefix -> default~web~80 (c1/default/t)',
      'pool default~web~80 [10.1.0.1:8080@c1]',
      'cert c1~default~tls cdcdcd hosts=a.example.com',
      'Accepted c1/default/t Planned',
    ],
  },
  {
    name: 'ssl-redirect redirects the TLS host only; the host without a certificate is still served over HTTP',
    objects: [twoHosts('t', { [`${P}/ssl-redirect`]: 'true' })],
    want: TWO_HOSTS_REDIRECTED,
  },
  {
    name: 'haproxy.sslRedirectDefault: true redirects TLS hosts of Ingresses that do not say; Ingresses without TLS get no warning',
    objects: [twoHosts('t', {}), ing('p', {}, { created: 1, host: 'p.example.com' })],
    appliance: {
      haproxy: { configDir: 'd', masterSocket: 's', httpPort: 80, httpsPort: 443, sslRedirectDefault: true },
    } as Partial<ApplianceConfig>,
    want: [
      'vs default~443 https default owners=c1/default/t certs=c1~default~tls',
      '  a.example.com/ Prefix -> default~web~80 (c1/default/t)',
      '  c.example.com/ Prefix -> default~web~80 (c1/default/t)',
      'vs default~80 http default owners=c1/default/t,c1/default/p',
      '  a.example.com/ Prefix -> default~web~80 redirect:443 (c1/default/t)',
      '  c.example.com/ Prefix -> default~web~80 (c1/default/t)',
      '  p.example.com/ Prefix -> default~web~80 (c1/default/p)',
      'pool default~web~80 [10.1.0.1:8080@c1]',
      'cert c1~default~tls cdcdcd hosts=a.example.com',
      'Accepted c1/default/p Planned',
      'Accepted c1/default/t Planned',
    ],
  },
  {
    name: 'portolan.dev/ssl-redirect: "false" overrides haproxy.sslRedirectDefault',
    objects: [twoHosts('t', { [`${P}/ssl-redirect`]: 'false' })],
    appliance: {
      haproxy: { configDir: 'd', masterSocket: 's', httpPort: 80, httpsPort: 443, sslRedirectDefault: true },
    } as Partial<ApplianceConfig>,
    want: [
      'vs default~443 https default owners=c1/default/t certs=c1~default~tls',
      '  a.example.com/ Prefix -> default~web~80 (c1/default/t)',
      '  c.example.com/ Prefix -> default~web~80 (c1/default/t)',
      'vs default~80 http default owners=c1/default/t',
      '  a.example.com/ Prefix -> default~web~80 (c1/default/t)',
      '  c.example.com/ Prefix -> default~web~80 (c1/default/t)',
      'pool default~web~80 [10.1.0.1:8080@c1]',
      'cert c1~default~tls cdcdcd hosts=a.example.com',
      'Accepted c1/default/t Planned',
    ],
  },
  {
    name: "a TLS Ingress's default backend is served over HTTP too",
    objects: [ing('d', {}, { tls: true, defaultBackend: true })],
    want: [
      'vs default~443 https default owners=c1/default/d default=default~web~80 certs=c1~default~tls',
      '  a.example.com/ Prefix -> default~web~80 (c1/default/d)',
      'vs default~80 http default owners=c1/default/d default=default~web~80',
      '  a.example.com/ Prefix -> default~web~80 (c1/default/d)',
      'pool default~web~80 [10.1.0.1:8080@c1]',
      'cert c1~default~tls cdcdcd hosts=a.example.com',
      'Accepted c1/default/d Planned',
    ],
  },
  {
    name: "with ssl-redirect on, a TLS Ingress's default backend stays on HTTPS (it answers TLS hosts too)",
    objects: [ing('r', { [`${P}/ssl-redirect`]: 'true' }, { tls: true, defaultBackend: true })],
    want: [
      'vs default~443 https default owners=c1/default/r default=default~web~80 certs=c1~default~tls',
      '  a.example.com/ Prefix -> default~web~80 (c1/default/r)',
      'vs default~80 http default owners=c1/default/r',
      '  a.example.com/ Prefix -> default~web~80 redirect:443 (c1/default/r)',
      'pool default~web~80 [10.1.0.1:8080@c1]',
      'cert c1~default~tls cdcdcd hosts=a.example.com',
      'Accepted c1/default/r Planned',
    ],
  },
  {
    name: 'ssl-redirect is per route on the shared HTTP listener, next to plain-HTTP Ingresses',
    objects: [
      ing('a', {}, { created: 1 }),
      ing('b', { [`${P}/ssl-redirect`]: 'true' }, { created: 2, tls: true, host: 'b.example.com' }),
    ],
    want: [
      'vs default~443 https default owners=c1/default/b certs=c1~default~tls',
      '  b.example.com/ Prefix -> default~web~80 (c1/default/b)',
      'vs default~80 http default owners=c1/default/a,c1/default/b',
      '  a.example.com/ Prefix -> default~web~80 (c1/default/a)',
      '  b.example.com/ Prefix -> default~web~80 redirect:443 (c1/default/b)',
      'pool default~web~80 [10.1.0.1:8080@c1]',
      'cert c1~default~tls cdcdcd hosts=b.example.com',
      'Accepted c1/default/a Planned',
      'Accepted c1/default/b Planned',
    ],
  },
  {
    name: 'backend-protocol https re-encrypts; monitor and persistence JSON configure the pool',
    objects: [
      ing('a', {
        [`${P}/backend-protocol`]: 'HTTPS',
        [`${P}/monitor`]: '{"type":"http","path":"/healthz"}',
        [`${P}/persistence`]: '{"type":"cookie","cookie":"SRV"}',
      }),
    ],
    want: [
      'vs default~80 http default owners=c1/default/a',
      `  a.example.com/ Prefix -> ${poolNameOf('default', { service: 'web', port: 80 }, { ...PLAIN, tlsToBackend: true, monitor: MON, persistence: { type: 'cookie', cookie: 'SRV', vendor: null } })} (c1/default/a)`,
      `pool ${poolNameOf('default', { service: 'web', port: 80 }, { ...PLAIN, tlsToBackend: true, monitor: MON, persistence: { type: 'cookie', cookie: 'SRV', vendor: null } })} monitor=http:/healthz persist=cookie:SRV tls [10.1.0.1:8080@c1]`,
      'Accepted c1/default/a Planned',
    ],
  },
  {
    name: 'ssl-passthrough with a default backend, on its own listen-port',
    objects: [
      ing(
        'a',
        { [`${P}/ssl-passthrough`]: 'true', [`${P}/listen-port`]: '9443' },
        { rules: false, defaultBackend: true },
      ),
    ],
    want: [
      'vs default~9443 tls-passthrough default owners=c1/default/a default=default~web~80',
      'pool default~web~80 [10.1.0.1:8080@c1]',
      'Accepted c1/default/a Planned',
    ],
  },
  {
    name: 'ssl-passthrough on the HTTPS port of a terminating listener: the newer Ingress is refused (one protocol per port)',
    objects: [
      ing('tls', {}, { created: 1, tls: true }),
      ing('pt', { [`${P}/ssl-passthrough`]: 'true' }, { created: 2, rules: false, defaultBackend: true }),
    ],
    want: [
      'vs default~443 https default owners=c1/default/tls certs=c1~default~tls',
      '  a.example.com/ Prefix -> default~web~80 (c1/default/tls)',
      'vs default~80 http default owners=c1/default/tls',
      '  a.example.com/ Prefix -> default~web~80 (c1/default/tls)',
      'pool default~web~80 [10.1.0.1:8080@c1]',
      'cert c1~default~tls cdcdcd hosts=a.example.com',
      'Rejected c1/default/pt ListenerProtocolConflict',
      'Accepted c1/default/tls Planned',
    ],
  },
  {
    name: "the HTTP port is an older passthrough listener's: a newer TLS Ingress is served over HTTPS only, with a warning",
    objects: [
      ing(
        'pt',
        { [`${P}/ssl-passthrough`]: 'true', [`${P}/listen-port`]: '80' },
        { created: 1, rules: false, defaultBackend: true },
      ),
      ing('tls', {}, { created: 2, tls: true }),
    ],
    want: [
      'vs default~443 https default owners=c1/default/tls certs=c1~default~tls',
      '  a.example.com/ Prefix -> default~web~80 (c1/default/tls)',
      'vs default~80 tls-passthrough default owners=c1/default/pt default=default~web~80',
      'pool default~web~80 [10.1.0.1:8080@c1]',
      'cert c1~default~tls cdcdcd hosts=a.example.com',
      'Accepted c1/default/pt Planned',
      'Accepted c1/default/tls Planned',
      'Warning c1/default/tls HttpPortInUse',
    ],
  },
  {
    name: 'vTM annotations mean nothing to HAProxy (its own set only)',
    objects: [ing('a', { 'vtm.pulsesecure.net/ip-address': '10.0.2.223' })],
    want: [
      'vs default~80 http default owners=c1/default/a',
      '  a.example.com/ Prefix -> default~web~80 (c1/default/a)',
      'pool default~web~80 [10.1.0.1:8080@c1]',
      'Accepted c1/default/a Planned',
    ],
  },
  {
    name: 'an unknown monitor field is rejected',
    objects: [ing('a', { [`${P}/monitor`]: '{"type":"http","url":"http://169.254.169.254/"}' })],
    want: ['Rejected c1/default/a InvalidAnnotationJson'],
  },
  {
    name: 'a monitor status pattern the appliance cannot compile rejects that Ingress only; the others are planned',
    objects: [
      ing('a', { [`${P}/monitor`]: '{"type":"http","expectStatus":"(["}' }),
      ing('b', {}, { created: 1, host: 'b.example.com' }),
    ],
    want: [
      'vs default~80 http default owners=c1/default/b',
      '  b.example.com/ Prefix -> default~web~80 (c1/default/b)',
      'pool default~web~80 [10.1.0.1:8080@c1]',
      'Rejected c1/default/a InvalidAnnotationJson',
      'Accepted c1/default/b Planned',
    ],
  },
  {
    name: "the HAProxy section's ports are the listener ports",
    objects: [ing('a', {}), ing('b', {}, { tls: true, created: 1, host: 'b.example.com' })],
    appliance: {
      haproxy: { configDir: 'd', masterSocket: 's', httpPort: 8080, httpsPort: 8443 },
    } as Partial<ApplianceConfig>,
    want: [
      'vs default~8080 http default owners=c1/default/a,c1/default/b',
      '  a.example.com/ Prefix -> default~web~80 (c1/default/a)',
      '  b.example.com/ Prefix -> default~web~80 (c1/default/b)',
      'vs default~8443 https default owners=c1/default/b certs=c1~default~tls',
      '  b.example.com/ Prefix -> default~web~80 (c1/default/b)',
      'pool default~web~80 [10.1.0.1:8080@c1]',
      'cert c1~default~tls cdcdcd hosts=b.example.com',
      'Accepted c1/default/a Planned',
      'Accepted c1/default/b Planned',
    ],
  },
];

for (const row of TABLE) {
  test(`portolan.dev on HAProxy: ${row.name}`, () => {
    const cfg = f.fleet([{ name: 'c1' }], [{ ...f.appliance('lb', 'haproxy'), ...row.appliance }]);
    assert.deepEqual(summarize(planEvents(cfg, f.added('c1', ...BASE, ...row.objects))), row.want);
  });
}
