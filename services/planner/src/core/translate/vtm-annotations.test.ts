import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApplianceConfig } from '@portolan/fleet-config';
import * as f from '../../testing/fixtures.ts';
import { planEvents, summarize } from '../../testing/summary.ts';
import { poolNameOf, type PoolSettings } from './ingress-intent.ts';
import { vtmMonitor } from './annotation-schemas.ts';

/**
 * The vTM Kubernetes integration's documented behaviour: every annotation rule and restriction, both spellings where its table
 * and prose disagree. Each row plans a small world and compares the whole output (summary form).
 */
const V = 'vtm.pulsesecure.net';
const POOL = 'pool default~web~80 monitor=tcp [10.1.0.1:8080@c1]';
const ROUTE = (ing: string, host = 'a.example.com'): string =>
  `  ${host}/ Prefix -> default~web~80 (c1/default/${ing})`;
const PLAIN: PoolSettings = { monitor: null, persistence: null, tlsToBackend: false, customization: null };
/** The pool a setting produces: its name carries a digest of the settings, so different settings never share a pool. */
const WEB = (settings: Partial<PoolSettings>): string =>
  poolNameOf('default', { service: 'web', port: 80 }, { ...PLAIN, ...settings });
const MONITOR = {
  properties: { basic: { type: 'http', timeout: 5, use_ssl: true }, http: { status_regex: '^403$' } },
} as const;

function ing(
  name: string,
  annotations: Record<string, string>,
  o: {
    tls?: boolean;
    created?: number;
    host?: string;
    rules?: boolean;
    defaultBackend?: boolean;
    className?: string | null;
  } = {},
) {
  const host = o.host ?? 'a.example.com';
  return f.ingress({
    name,
    created: f.at(o.created ?? 0),
    annotations,
    className: o.className === undefined ? 'vtm' : o.className,
    ...(o.rules === false ? {} : { rules: [f.rule(host, ['/', 'Prefix', 'web', 80])] }),
    ...(o.tls ? { tls: [{ hosts: [host], secretName: 'tls' }] } : {}),
    ...(o.defaultBackend ? { defaultBackend: f.backend('web', 80) } : {}),
  });
}

const BASE = [
  f.ingressClass('vtm', 'pulsesecure.net/vtm-ingress-controller'),
  f.service('web', [[undefined, 80]]),
  f.slice('web-1', 'web', undefined, 8080, [['10.1.0.1']]),
  f.tlsSecret('tls', 'cd'.repeat(32)),
];

const TABLE: {
  name: string;
  objects: Record<string, unknown>[];
  appliance?: Partial<ApplianceConfig>;
  want: string[];
}[] = [
  {
    name: 'ip-address: a dedicated listener on that address, port 80 without TLS',
    objects: [ing('a', { [`${V}/ip-address`]: '10.0.2.223' })],
    want: [
      'vs 10.0.2.223~80 http dedicated:10.0.2.223 owners=c1/default/a',
      ROUTE('a'),
      POOL,
      'Accepted c1/default/a Planned',
    ],
  },
  {
    name: 'port defaults to 443 when a TLS section exists; the Secret becomes a certificate reference',
    objects: [ing('a', { [`${V}/ip-address`]: '10.0.2.223' }, { tls: true })],
    want: [
      'vs 10.0.2.223~443 https dedicated:10.0.2.223 owners=c1/default/a certs=c1~default~tls',
      ROUTE('a'),
      POOL,
      'cert c1~default~tls cdcdcd hosts=a.example.com',
      'Accepted c1/default/a Planned',
    ],
  },
  {
    name: 'port annotation sets the bind port',
    objects: [ing('a', { [`${V}/ip-address`]: '10.0.2.223', [`${V}/port`]: '666' })],
    want: [
      'vs 10.0.2.223~666 http dedicated:10.0.2.223 owners=c1/default/a',
      ROUTE('a'),
      POOL,
      'Accepted c1/default/a Planned',
    ],
  },
  {
    name: 'shared-ip-address (prose spelling): a shared listener',
    objects: [ing('a', { [`${V}/shared-ip-address`]: '10.0.5.223' })],
    want: [
      'vs 10.0.5.223~80 http shared:10.0.5.223 owners=c1/default/a',
      ROUTE('a'),
      POOL,
      'Accepted c1/default/a Planned',
    ],
  },
  {
    name: 'shared-ipaddress (table spelling): the same',
    objects: [ing('a', { [`${V}/shared-ipaddress`]: '10.0.5.223' })],
    want: [
      'vs 10.0.5.223~80 http shared:10.0.5.223 owners=c1/default/a',
      ROUTE('a'),
      POOL,
      'Accepted c1/default/a Planned',
    ],
  },
  {
    name: 'both spellings with different values are rejected, not guessed',
    objects: [ing('a', { [`${V}/shared-ip-address`]: '10.0.5.223', [`${V}/shared-ipaddress`]: '10.0.5.224' })],
    want: ['Rejected c1/default/a ConflictingAnnotations'],
  },
  {
    name: 'ip-address and shared-ip-address together are rejected',
    objects: [ing('a', { [`${V}/ip-address`]: '10.0.2.223', [`${V}/shared-ip-address`]: '10.0.5.223' })],
    want: ['Rejected c1/default/a ConflictingAnnotations'],
  },
  {
    name: 'neither address: the default traffic IP group',
    objects: [ing('a', {})],
    want: ['vs default~80 http default owners=c1/default/a', ROUTE('a'), POOL, 'Accepted c1/default/a Planned'],
  },
  {
    name: 'neither address and no default traffic IP group: an error is reported',
    objects: [ing('a', {})],
    appliance: {
      vtm: { url: 'https://vtm.example:9070', username: 'admin', passwordFile: 'p' },
    } as Partial<ApplianceConfig>,
    want: ['Rejected c1/default/a NoDefaultTrafficIpGroup'],
  },
  {
    name: 'ingress.kubernetes.io/ssl-redirect with TLS: an extra port-80 listener redirecting to the HTTPS one',
    objects: [
      ing('a', { [`${V}/ip-address`]: '10.0.2.223', 'ingress.kubernetes.io/ssl-redirect': 'true' }, { tls: true }),
    ],
    want: [
      'vs 10.0.2.223~443 https dedicated:10.0.2.223 owners=c1/default/a certs=c1~default~tls',
      ROUTE('a'),
      'vs 10.0.2.223~80 http dedicated:10.0.2.223 owners=c1/default/a redirect=443',
      POOL,
      'cert c1~default~tls cdcdcd hosts=a.example.com',
      'Accepted c1/default/a Planned',
    ],
  },
  {
    name: 'vtm.pulsesecure.net/ssl-redirect (prose spelling): the same',
    objects: [ing('a', { [`${V}/ip-address`]: '10.0.2.223', [`${V}/ssl-redirect`]: 'TRUE' }, { tls: true })],
    want: [
      'vs 10.0.2.223~443 https dedicated:10.0.2.223 owners=c1/default/a certs=c1~default~tls',
      ROUTE('a'),
      'vs 10.0.2.223~80 http dedicated:10.0.2.223 owners=c1/default/a redirect=443',
      POOL,
      'cert c1~default~tls cdcdcd hosts=a.example.com',
      'Accepted c1/default/a Planned',
    ],
  },
  {
    name: 'ssl-redirect without a TLS section is ignored with a warning',
    objects: [ing('a', { [`${V}/ip-address`]: '10.0.2.223', 'ingress.kubernetes.io/ssl-redirect': 'true' })],
    want: [
      'vs 10.0.2.223~80 http dedicated:10.0.2.223 owners=c1/default/a',
      ROUTE('a'),
      POOL,
      'Accepted c1/default/a Planned',
      'Warning c1/default/a SslRedirectWithoutTls',
    ],
  },
  {
    name: 'ssl-redirect on a dedicated address whose bind port is 80 cannot redirect to itself',
    objects: [
      ing(
        'a',
        { [`${V}/ip-address`]: '10.0.2.223', [`${V}/port`]: '80', 'ingress.kubernetes.io/ssl-redirect': 'true' },
        { tls: true },
      ),
    ],
    want: ['Rejected c1/default/a SslRedirectPortConflict'],
  },
  {
    name: 'ingress.kubernetes.io/ssl-passthrough (prose spelling) with only a default backend: a passthrough listener',
    objects: [
      ing(
        'a',
        { [`${V}/ip-address`]: '10.0.2.223', 'ingress.kubernetes.io/ssl-passthrough': 'true', [`${V}/port`]: '443' },
        { rules: false, defaultBackend: true },
      ),
    ],
    want: [
      'vs 10.0.2.223~443 tls-passthrough dedicated:10.0.2.223 owners=c1/default/a default=default~web~80',
      POOL,
      'Accepted c1/default/a Planned',
    ],
  },
  {
    name: 'ingress.kubernetes.io/sslpassthrough (table spelling): the same',
    objects: [
      ing(
        'a',
        { [`${V}/ip-address`]: '10.0.2.223', 'ingress.kubernetes.io/sslpassthrough': 'true', [`${V}/port`]: '443' },
        { rules: false, defaultBackend: true },
      ),
    ],
    want: [
      'vs 10.0.2.223~443 tls-passthrough dedicated:10.0.2.223 owners=c1/default/a default=default~web~80',
      POOL,
      'Accepted c1/default/a Planned',
    ],
  },
  {
    name: 'ssl-passthrough is incompatible with a TLS section',
    objects: [
      ing(
        'a',
        { [`${V}/ip-address`]: '10.0.2.223', 'ingress.kubernetes.io/ssl-passthrough': 'true' },
        { rules: false, defaultBackend: true, tls: true },
      ),
    ],
    want: ['Rejected c1/default/a PassthroughWithTlsOrRules'],
  },
  {
    name: 'ssl-passthrough is incompatible with rules',
    objects: [ing('a', { [`${V}/ip-address`]: '10.0.2.223', 'ingress.kubernetes.io/sslpassthrough': 'true' })],
    want: ['Rejected c1/default/a PassthroughWithTlsOrRules'],
  },
  {
    name: 'shared address: ssl-passthrough cannot be used (routing needs the HTTP payload)',
    objects: [
      ing(
        'a',
        { [`${V}/shared-ip-address`]: '10.0.5.223', 'ingress.kubernetes.io/ssl-passthrough': 'true' },
        { rules: false, defaultBackend: true },
      ),
    ],
    want: ['Rejected c1/default/a PassthroughOnSharedAddress'],
  },
  {
    name: 're-encrypt: pools re-encrypt to the back-ends',
    objects: [ing('a', { [`${V}/ip-address`]: '10.0.2.223', [`${V}/re-encrypt`]: 'true' })],
    want: [
      'vs 10.0.2.223~80 http dedicated:10.0.2.223 owners=c1/default/a',
      `  a.example.com/ Prefix -> ${WEB({ tlsToBackend: true })} (c1/default/a)`,
      `pool ${WEB({ tlsToBackend: true })} monitor=tcp tls [10.1.0.1:8080@c1]`,
      'Accepted c1/default/a Planned',
    ],
  },
  {
    name: 'monitor: the documented example becomes an HTTPS monitor (vendor JSON kept)',
    objects: [
      ing('a', {
        [`${V}/ip-address`]: '10.0.2.223',
        [`${V}/monitor`]:
          '{"properties": {"basic": {"type":"http","timeout":5,"use_ssl":true}, "http": {"status_regex":"^403$"}}}',
      }),
    ],
    want: [
      'vs 10.0.2.223~80 http dedicated:10.0.2.223 owners=c1/default/a',
      `  a.example.com/ Prefix -> ${WEB({ monitor: vtmMonitor(MONITOR) })} (c1/default/a)`,
      `pool ${WEB({ monitor: vtmMonitor(MONITOR) })} monitor=https:/ [10.1.0.1:8080@c1]`,
      'Accepted c1/default/a Planned',
    ],
  },
  {
    name: 'monitor with a key outside the allowlist (machine: another host to probe) is rejected with the path',
    objects: [
      ing('a', {
        [`${V}/ip-address`]: '10.0.2.223',
        [`${V}/monitor`]: '{"properties":{"basic":{"type":"http","machine":"169.254.169.254:80"}}}',
      }),
    ],
    want: ['Rejected c1/default/a InvalidAnnotationJson'],
  },
  {
    name: 'persistence: the documented example becomes cookie persistence',
    objects: [
      ing('a', {
        [`${V}/ip-address`]: '10.0.2.223',
        [`${V}/persistence`]: '{"properties": {"basic": {"type":"cookie","cookie":"ChocChip"}}}',
      }),
    ],
    want: [
      'vs 10.0.2.223~80 http dedicated:10.0.2.223 owners=c1/default/a',
      `  a.example.com/ Prefix -> ${WEB({ persistence: { type: 'cookie', cookie: 'ChocChip', vendor: { properties: { basic: { type: 'cookie', cookie: 'ChocChip' } } } } })} (c1/default/a)`,
      `pool ${WEB({ persistence: { type: 'cookie', cookie: 'ChocChip', vendor: { properties: { basic: { type: 'cookie', cookie: 'ChocChip' } } } } })} monitor=tcp persist=cookie:ChocChip [10.1.0.1:8080@c1]`,
      'Accepted c1/default/a Planned',
    ],
  },
  {
    name: 'pool-customization (prose spelling) is read only with enableCustomizations',
    objects: [
      ing('a', {
        [`${V}/ip-address`]: '10.0.2.223',
        [`${V}/pool-customization`]: '{"properties": {"basic":{"passive_monitoring": false}}}',
      }),
    ],
    appliance: { enableCustomizations: true },
    want: [
      'vs 10.0.2.223~80 http dedicated:10.0.2.223 owners=c1/default/a',
      `  a.example.com/ Prefix -> ${WEB({ customization: { properties: { basic: { passive_monitoring: false } } } })} (c1/default/a)`,
      `pool ${WEB({ customization: { properties: { basic: { passive_monitoring: false } } } })} monitor=tcp custom={"properties":{"basic":{"passive_monitoring":false}}} [10.1.0.1:8080@c1]`,
      'Accepted c1/default/a Planned',
    ],
  },
  {
    name: 'poolcustomization (table spelling) without enableCustomizations is ignored with a warning',
    objects: [
      ing('a', {
        [`${V}/ip-address`]: '10.0.2.223',
        [`${V}/poolcustomization`]: '{"properties": {"basic":{"passive_monitoring": false}}}',
      }),
    ],
    want: [
      'vs 10.0.2.223~80 http dedicated:10.0.2.223 owners=c1/default/a',
      ROUTE('a'),
      POOL,
      'Accepted c1/default/a Planned',
      'Warning c1/default/a CustomizationsDisabled',
    ],
  },
  {
    name: 'virtualserver-customization on a dedicated address with enableCustomizations',
    objects: [
      ing('a', {
        [`${V}/ip-address`]: '10.0.2.223',
        [`${V}/virtualserver-customization`]: '{"properties": {"web_cache": {"enabled": true}}}',
      }),
    ],
    appliance: { enableCustomizations: true },
    want: [
      'vs 10.0.2.223~80 http dedicated:10.0.2.223 owners=c1/default/a custom={"properties":{"web_cache":{"enabled":true}}}',
      ROUTE('a'),
      POOL,
      'Accepted c1/default/a Planned',
    ],
  },
  {
    name: 'virtualserver-customization is not supported on a shared address',
    objects: [
      ing('a', {
        [`${V}/shared-ip-address`]: '10.0.5.223',
        [`${V}/virtualserver-customization`]: '{"properties": {"web_cache": {"enabled": true}}}',
      }),
    ],
    appliance: { enableCustomizations: true },
    want: [
      'vs 10.0.5.223~80 http shared:10.0.5.223 owners=c1/default/a',
      ROUTE('a'),
      POOL,
      'Accepted c1/default/a Planned',
      'Warning c1/default/a CustomizationOnSharedAddress',
    ],
  },
  {
    name: 'virtualserver-customization that moves the listener (listen_on_any) is refused by the allowlist',
    objects: [
      ing('a', {
        [`${V}/ip-address`]: '10.0.2.223',
        [`${V}/virtualserver-customization`]: '{"properties": {"basic": {"listen_on_any": true}}}',
      }),
    ],
    appliance: { enableCustomizations: true },
    want: ['Rejected c1/default/a InvalidAnnotationJson'],
  },
  {
    name: 'request-trafficscript and responsetrafficscript (both spellings) with enableTrafficScript on a dedicated address',
    objects: [
      ing('a', {
        [`${V}/ip-address`]: '10.0.2.223',
        [`${V}/request-trafficscript`]: 'http.addHeader("X-Via", "Pulse vTM");',
        [`${V}/responsetrafficscript`]:
          'if(http.getResponseCode() == 500) { http.redirect("https://my.services/sorry"); }',
      }),
    ],
    appliance: { enableTrafficScript: true },
    want: [
      'vs 10.0.2.223~80 http dedicated:10.0.2.223 owners=c1/default/a req="http.addHeader(\\"X-Via\\", \\"Pulse vTM\\");" resp="if(http.getResponseCode() == 500) { http.redirect(\\"https://my.services/sorry\\"); }"',
      ROUTE('a'),
      POOL,
      'Accepted c1/default/a Planned',
    ],
  },
  {
    name: 'TrafficScript without enableTrafficScript is ignored with a warning',
    objects: [
      ing('a', { [`${V}/ip-address`]: '10.0.2.223', [`${V}/requesttrafficscript`]: 'http.addHeader("X", "1");' }),
    ],
    want: [
      'vs 10.0.2.223~80 http dedicated:10.0.2.223 owners=c1/default/a',
      ROUTE('a'),
      POOL,
      'Accepted c1/default/a Planned',
      'Warning c1/default/a TrafficScriptDisabled',
    ],
  },
  {
    name: 'TrafficScript is never used with a shared IP',
    objects: [
      ing('a', {
        [`${V}/shared-ip-address`]: '10.0.5.223',
        [`${V}/response-trafficscript`]: 'http.setResponseCode(200);',
      }),
    ],
    appliance: { enableTrafficScript: true },
    want: [
      'vs 10.0.5.223~80 http shared:10.0.5.223 owners=c1/default/a',
      ROUTE('a'),
      POOL,
      'Accepted c1/default/a Planned',
      'Warning c1/default/a TrafficScriptOnSharedAddress',
    ],
  },
  {
    name: 'use-lets-encrypt (prose spelling): the TLS Secret is obtained by ACME, no SecretNotFound',
    objects: [
      withSecret(
        ing('a', { [`${V}/ip-address`]: '10.0.2.223', [`${V}/use-lets-encrypt`]: 'true' }, { tls: true }),
        'le-new',
      ),
    ],
    want: [
      'vs 10.0.2.223~443 https dedicated:10.0.2.223 owners=c1/default/a certs=c1~default~le-new',
      ROUTE('a'),
      POOL,
      'cert c1~default~le-new - hosts=a.example.com acme',
      'Accepted c1/default/a Planned',
    ],
  },
  {
    name: 'use-letsencrypt (table spelling): an issued Secret keeps being renewed (fingerprint known, still ACME)',
    objects: [ing('a', { [`${V}/ip-address`]: '10.0.2.223', [`${V}/use-letsencrypt`]: 'true' }, { tls: true })],
    want: [
      'vs 10.0.2.223~443 https dedicated:10.0.2.223 owners=c1/default/a certs=c1~default~tls',
      ROUTE('a'),
      POOL,
      'cert c1~default~tls cdcdcd hosts=a.example.com acme',
      'Accepted c1/default/a Planned',
    ],
  },
  {
    name: 'TLS without its Secret: a condition on that Ingress; the host is served without that certificate',
    objects: [withSecret(ing('a', { [`${V}/ip-address`]: '10.0.2.223' }, { tls: true }), 'missing')],
    want: [
      'vs 10.0.2.223~443 https dedicated:10.0.2.223 owners=c1/default/a',
      ROUTE('a'),
      POOL,
      'Accepted c1/default/a Planned',
      'Warning c1/default/a SecretNotFound',
    ],
  },
  {
    name: 'shared address: Ingresses on one port share one listener; routes apply in creation order (owners oldest first)',
    objects: [
      ing('b', { [`${V}/shared-ip-address`]: '10.0.5.223' }, { created: 2, host: 'b.example.com' }),
      ing('a', { [`${V}/shared-ipaddress`]: '10.0.5.223' }, { created: 1 }),
    ],
    want: [
      'vs 10.0.5.223~80 http shared:10.0.5.223 owners=c1/default/a,c1/default/b',
      ROUTE('a'),
      ROUTE('b', 'b.example.com'),
      POOL,
      'Accepted c1/default/a Planned',
      'Accepted c1/default/b Planned',
    ],
  },
  {
    name: 'shared address: ssl-redirect with bind port 443 adds the shared port-80 redirect',
    objects: [
      ing(
        'a',
        { [`${V}/shared-ip-address`]: '10.0.5.223', 'ingress.kubernetes.io/ssl-redirect': 'true' },
        { tls: true },
      ),
    ],
    want: [
      'vs 10.0.5.223~443 https shared:10.0.5.223 owners=c1/default/a certs=c1~default~tls',
      ROUTE('a'),
      'vs 10.0.5.223~80 http shared:10.0.5.223 owners=c1/default/a redirect=443',
      POOL,
      'cert c1~default~tls cdcdcd hosts=a.example.com',
      'Accepted c1/default/a Planned',
    ],
  },
  {
    name: 'shared address: ssl-redirect only if the bind port is 443',
    objects: [
      ing(
        'a',
        {
          [`${V}/shared-ip-address`]: '10.0.5.223',
          [`${V}/port`]: '8443',
          'ingress.kubernetes.io/ssl-redirect': 'true',
        },
        { tls: true },
      ),
    ],
    want: ['Rejected c1/default/a SslRedirectNeedsPort443'],
  },
  {
    name: 'shared address: ssl-redirect is refused when an older Ingress sharing the IP binds port 80',
    objects: [
      ing('old', { [`${V}/shared-ip-address`]: '10.0.5.223' }, { created: 1, host: 'o.example.com' }),
      ing(
        'new',
        { [`${V}/shared-ip-address`]: '10.0.5.223', 'ingress.kubernetes.io/ssl-redirect': 'true' },
        { created: 2, tls: true },
      ),
    ],
    want: [
      'vs 10.0.5.223~80 http shared:10.0.5.223 owners=c1/default/old',
      ROUTE('old', 'o.example.com'),
      POOL,
      'Rejected c1/default/new SharedAddressPort80InUse',
      'Accepted c1/default/old Planned',
    ],
  },
  {
    name: 'shared address: after an ssl-redirect Ingress, no newer Ingress may bind port 80',
    objects: [
      ing(
        'old',
        { [`${V}/shared-ip-address`]: '10.0.5.223', [`${V}/ssl-redirect`]: 'true' },
        { created: 1, tls: true },
      ),
      ing('new', { [`${V}/shared-ip-address`]: '10.0.5.223' }, { created: 2, host: 'n.example.com' }),
    ],
    want: [
      'vs 10.0.5.223~443 https shared:10.0.5.223 owners=c1/default/old certs=c1~default~tls',
      ROUTE('old'),
      'vs 10.0.5.223~80 http shared:10.0.5.223 owners=c1/default/old redirect=443',
      POOL,
      'cert c1~default~tls cdcdcd hosts=a.example.com',
      'Rejected c1/default/new SharedAddressPort80Reserved',
      'Accepted c1/default/old Planned',
    ],
  },
  {
    name: 'shared address: use-lets-encrypt is refused when an older Ingress sharing the IP binds port 80',
    objects: [
      ing('old', { [`${V}/shared-ip-address`]: '10.0.5.223' }, { created: 1, host: 'o.example.com' }),
      ing(
        'new',
        { [`${V}/shared-ip-address`]: '10.0.5.223', [`${V}/use-lets-encrypt`]: 'true' },
        { created: 2, tls: true },
      ),
    ],
    want: [
      'vs 10.0.5.223~80 http shared:10.0.5.223 owners=c1/default/old',
      ROUTE('old', 'o.example.com'),
      POOL,
      'Rejected c1/default/new SharedAddressPort80InUse',
      'Accepted c1/default/old Planned',
    ],
  },
  {
    name: 'shared address: after a use-lets-encrypt Ingress, no newer Ingress may bind port 80',
    objects: [
      ing(
        'old',
        { [`${V}/shared-ip-address`]: '10.0.5.223', [`${V}/use-letsencrypt`]: 'true' },
        { created: 1, tls: true },
      ),
      ing('new', { [`${V}/shared-ip-address`]: '10.0.5.223' }, { created: 2, host: 'n.example.com' }),
    ],
    want: [
      'vs 10.0.5.223~443 https shared:10.0.5.223 owners=c1/default/old certs=c1~default~tls',
      ROUTE('old'),
      POOL,
      'cert c1~default~tls cdcdcd hosts=a.example.com acme',
      'Rejected c1/default/new SharedAddressPort80Reserved',
      'Accepted c1/default/old Planned',
    ],
  },
  {
    name: 'a dedicated address belongs to one Ingress: the newer one is refused',
    objects: [
      ing('old', { [`${V}/ip-address`]: '10.0.2.223' }, { created: 1 }),
      ing('new', { [`${V}/ip-address`]: '10.0.2.223', [`${V}/port`]: '8080' }, { created: 2, host: 'n.example.com' }),
    ],
    want: [
      'vs 10.0.2.223~80 http dedicated:10.0.2.223 owners=c1/default/old',
      ROUTE('old'),
      POOL,
      'Rejected c1/default/new AddressInUse',
      'Accepted c1/default/old Planned',
    ],
  },
  {
    name: 'an address used dedicated cannot also be shared',
    objects: [
      ing('old', { [`${V}/ip-address`]: '10.0.2.223' }, { created: 1 }),
      ing('new', { [`${V}/shared-ip-address`]: '10.0.2.223' }, { created: 2, host: 'n.example.com' }),
    ],
    want: [
      'vs 10.0.2.223~80 http dedicated:10.0.2.223 owners=c1/default/old',
      ROUTE('old'),
      POOL,
      'Rejected c1/default/new AddressModeConflict',
      'Accepted c1/default/old Planned',
    ],
  },
  {
    name: 'the deprecated kubernetes.io/ingress.class: vtm annotation selects the Ingress without an IngressClass',
    objects: [
      ing('a', { 'kubernetes.io/ingress.class': 'vtm', [`${V}/ip-address`]: '10.0.2.223' }, { className: null }),
    ],
    want: [
      'vs 10.0.2.223~80 http dedicated:10.0.2.223 owners=c1/default/a',
      ROUTE('a'),
      POOL,
      'Accepted c1/default/a Planned',
    ],
  },
  {
    name: "an IngressClass of another controller is not this appliance's: nothing planned, nothing reported",
    objects: [
      f.ingressClass('nginx', 'k8s.io/ingress-nginx'),
      ing('a', { [`${V}/ip-address`]: '10.0.2.223' }, { className: 'nginx' }),
    ],
    want: [],
  },
  {
    name: 'a boolean annotation that is not true/false is rejected with its name',
    objects: [ing('a', { [`${V}/ip-address`]: '10.0.2.223', [`${V}/re-encrypt`]: 'yes' })],
    want: ['Rejected c1/default/a InvalidAnnotation'],
  },
];

function withSecret(o: Record<string, unknown>, secretName: string): Record<string, unknown> {
  const spec = o['spec'] as Record<string, unknown>;
  const tls = (spec['tls'] as { hosts: string[] }[]).map((t) => ({ ...t, secretName }));
  return { ...o, spec: { ...spec, tls } };
}

for (const row of TABLE) {
  test(`vTM: ${row.name}`, () => {
    const cfg = f.fleet([{ name: 'c1' }], [{ ...f.appliance('lb', 'vtm'), ...row.appliance }]);
    const d = planEvents(cfg, f.added('c1', ...BASE, ...row.objects));
    assert.deepEqual(summarize(d), row.want);
  });
}

test('vTM: condition messages explain the restriction and name the older Ingress', () => {
  const cfg = f.fleet([{ name: 'c1' }], [f.appliance('lb', 'vtm')]);
  const d = planEvents(
    cfg,
    f.added(
      'c1',
      ...BASE,
      ing('old', { [`${V}/shared-ip-address`]: '10.0.5.223' }, { created: 1 }),
      ing(
        'new',
        { [`${V}/shared-ip-address`]: '10.0.5.223', 'ingress.kubernetes.io/ssl-redirect': 'true' },
        { created: 2, tls: true },
      ),
    ),
  );
  const c = d.conditions.find((x) => x.object.name === 'new')!;
  assert.equal(
    c.message,
    'ssl-redirect needs port 80 of shared address 10.0.5.223, which the older Ingress default/old binds',
  );
});
