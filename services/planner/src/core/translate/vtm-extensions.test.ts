import { POOL, ROUTE, V, WEB, ing, withSecret, vtmTable, type VtmRow } from '../../testing/vtm-table.ts';

/**
 * The vTM integration's documented behaviour, extensions and certificates: customizations and TrafficScript (only
 * where the appliance enables them), Let's Encrypt, and TLS Secrets that are missing.
 */
const TABLE: VtmRow[] = [
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
];

vtmTable(TABLE);
