import type { ApplianceConfig } from '@portolan/fleet-config';
import { MONITOR, POOL, ROUTE, V, WEB, ing, vtmTable, type VtmRow } from '../../testing/vtm-table.ts';
import { vtmMonitor } from './annotation-schemas.ts';

/**
 * The vTM Kubernetes integration's documented behaviour, listeners and pools: addresses, ports, ssl-redirect,
 * ssl-passthrough, re-encryption, monitors and persistence, both spellings where its table and prose disagree.
 */
const TABLE: VtmRow[] = [
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
];

vtmTable(TABLE);
