import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonObject } from '@portolan/desired-state';
import { evaluateTrafficScript } from '../testing/evaluate-traffic-script.ts';
import { certificate, desiredState, ingress, pool, route, virtualService } from '../testing/desired-fixtures.ts';
import { renderVtm } from './render-vtm.ts';
import { config, find, POOL_A, POOL_B, props, ROUTE, ruleText, VS } from '../testing/render-reading.ts';
import { vtmName } from './vtm-names.ts';

describe('renderVtm: addresses (the documented ip-address, shared-ip-address, default group)', () => {
  const cases: {
    name: string;
    vs: Parameters<typeof virtualService>[0][];
    want: { tigs: JsonObject[]; listen: string[][]; conditions: string[] };
  }[] = [
    {
      name: 'dedicated ip-address creates a traffic IP group on the configured machines',
      vs: [{}],
      want: {
        tigs: [
          {
            basic: {
              enabled: true,
              ipaddresses: ['192.0.2.10'],
              machines: ['tm-a', 'tm-b'],
              note: 'portolan:vtm:TrafficIP/192.0.2.10',
            },
          },
        ],
        listen: [[vtmName('tip', '192.0.2.10')]],
        conditions: [],
      },
    },
    {
      name: 'shared-ip-address: two ports on one address share one traffic IP group',
      vs: [
        { name: 'a', address: { kind: 'shared', ip: '192.0.2.20' } },
        { name: 'b', address: { kind: 'shared', ip: '192.0.2.20' }, port: 8080, owners: [ingress('other')] },
      ],
      want: {
        tigs: [
          {
            basic: {
              enabled: true,
              ipaddresses: ['192.0.2.20'],
              machines: ['tm-a', 'tm-b'],
              note: 'portolan:vtm:TrafficIP/192.0.2.20',
            },
          },
        ],
        listen: [[vtmName('tip', '192.0.2.20')], [vtmName('tip', '192.0.2.20')]],
        conditions: [],
      },
    },
    {
      name: 'no address annotation listens on the default traffic IP group and creates none',
      vs: [{ address: { kind: 'default' } }],
      want: { tigs: [], listen: [['Web-TIG']], conditions: [] },
    },
    {
      name: 'two services on one shared address and port: the later one is rejected',
      vs: [
        { name: 'a', address: { kind: 'shared', ip: '192.0.2.20' } },
        { name: 'b', address: { kind: 'shared', ip: '192.0.2.20' }, owners: [ingress('late')] },
      ],
      want: {
        tigs: [
          {
            basic: {
              enabled: true,
              ipaddresses: ['192.0.2.20'],
              machines: ['tm-a', 'tm-b'],
              note: 'portolan:vtm:TrafficIP/192.0.2.20',
            },
          },
        ],
        listen: [[vtmName('tip', '192.0.2.20')]],
        conditions: ['Rejected/PortInUse/late'],
      },
    },
    {
      name: 'ssl-passthrough cannot use a shared address',
      vs: [{ address: { kind: 'shared', ip: '192.0.2.20' }, protocol: 'tls-passthrough', port: 443 }],
      want: { tigs: [], listen: [], conditions: ['Rejected/SharedAddressPassthrough/web'] },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const out = renderVtm(desiredState({ virtualServices: c.vs.map((v) => virtualService(v)) }), config);
      assert.deepEqual(
        out.objects
          .filter((o) => o.type === 'traffic_ip_groups')
          .map((o) => (o.type === 'rules' ? null : o.properties)),
        c.want.tigs,
      );
      assert.deepEqual(
        out.objects
          .filter((o) => o.type === 'virtual_servers')
          // eslint-disable-next-line @typescript-eslint/no-explicit-any -- vTM properties are loosely typed
          .map((o) => (o.type === 'rules' ? null : (o.properties['basic'] as any).listen_on_traffic_ips)),
        c.want.listen,
      );
      assert.deepEqual(
        out.conditions.map((x) => `${x.type}/${x.reason}/${x.object.name}`),
        c.want.conditions,
      );
    });
  }

  test('machines not configured: the group is rendered without them (the runner fills in every traffic manager)', () => {
    const out = renderVtm(desiredState({ virtualServices: [virtualService()] }), { ...config, machines: null });
    assert.deepEqual(props(out, 'traffic_ip_groups', vtmName('tip', '192.0.2.10')), {
      basic: { enabled: true, ipaddresses: ['192.0.2.10'], note: 'portolan:vtm:TrafficIP/192.0.2.10' },
    });
  });

  test('no address and no default traffic IP group: the Ingress is rejected and nothing is rendered for it', () => {
    const out = renderVtm(desiredState({ virtualServices: [virtualService({ address: { kind: 'default' } })] }), {
      ...config,
      defaultTrafficIpGroup: null,
    });
    assert.deepEqual(out.objects, []);
    assert.deepEqual(
      out.conditions.map((x) => [x.type, x.reason, x.object.name]),
      [['Rejected', 'NoDefaultTrafficIpGroup', 'web']],
    );
  });
});

describe('renderVtm: virtual servers', () => {
  test('an HTTP Ingress on port 80: enabled, listens only on its group, routing rule attached', () => {
    const out = renderVtm(
      desiredState({
        virtualServices: [virtualService({ routes: [route('a.example.com', '/', 'Prefix', 'default.a')] })],
        pools: [pool('default.a')],
      }),
      config,
    );
    assert.deepEqual(props(out, 'virtual_servers', VS), {
      basic: {
        enabled: true,
        listen_on_any: false,
        listen_on_traffic_ips: [vtmName('tip', '192.0.2.10')],
        note: 'portolan:vtm:Ingress/c1/default/web',
        pool: 'discard',
        port: 80,
        protocol: 'http',
        request_rules: [ROUTE],
        response_rules: [],
        ssl_decrypt: false,
      },
    });
  });

  test('the annotated port is used as is (vtm.pulsesecure.net/port)', () => {
    const out = renderVtm(
      desiredState({
        virtualServices: [virtualService({ port: 666, defaultPool: 'default.a' })],
        pools: [pool('default.a')],
      }),
      config,
    );
    assert.equal(props(out, 'virtual_servers', VS).basic.port, 666);
    assert.equal(props(out, 'virtual_servers', VS).basic.pool, POOL_A, 'spec.defaultBackend is the default pool');
    assert.deepEqual(
      props(out, 'virtual_servers', VS).basic.request_rules,
      [],
      'no routes and a default pool need no rule',
    );
  });

  test('TLS: decrypt on an http VS, first certificate is the default, every host maps by SNI; keys carry no material', () => {
    const out = renderVtm(
      desiredState({
        virtualServices: [
          virtualService({
            port: 443,
            protocol: 'https',
            certificates: ['default.tls-a', 'default.tls-b'],
            defaultPool: 'default.a',
          }),
        ],
        pools: [pool('default.a')],
        certificates: [
          certificate('default.tls-a', ['a.example.com', 'www.example.com']),
          certificate('default.tls-b', ['*.b.example.com', 'a.example.com'], 'cd'.repeat(32)),
        ],
      }),
      config,
    );
    const vs = props(out, 'virtual_servers', VS);
    assert.deepEqual([vs.basic.protocol, vs.basic.ssl_decrypt, vs.basic.port], ['http', true, 443]);
    const keyA = vtmName('key', 'default.tls-a');
    const keyB = vtmName('key', 'default.tls-b');
    assert.deepEqual(vs.ssl, {
      server_cert_default: keyA,
      server_cert_host_mapping: [
        { host: 'a.example.com', certificate: keyA, alt_certificates: [] },
        { host: 'www.example.com', certificate: keyA, alt_certificates: [] },
        { host: '*.b.example.com', certificate: keyB, alt_certificates: [] },
      ],
    });
    const key = find(out, 'ssl/server_keys', keyB);
    assert.deepEqual(key, {
      type: 'ssl/server_keys',
      name: keyB,
      properties: { basic: { note: `portolan:vtm:Secret/c1/default/default.tls-b@${'cd'.repeat(8)}` } },
      secret: { cluster: 'c1', kind: 'Secret', namespace: 'default', name: 'default.tls-b' },
    });
    assert.ok(!JSON.stringify(out).includes('PRIVATE'), 'render output never holds key material');
  });

  test('per-route ssl-redirect on a shared port-80 VS: the TLS host redirects, the plain one is proxied', () => {
    const routes = [
      { ...route('secure.example.com', '/', 'Prefix', 'default.secure'), redirectToHttpsPort: 8443 },
      route('plain.example.com', '/', 'Prefix', 'default.plain'),
    ];
    const out = renderVtm(desiredState({ virtualServices: [virtualService({ routes })] }), config);
    assert.deepEqual(evaluateTrafficScript(ruleText(out, ROUTE), { host: 'secure.example.com', url: '/pay?x=1' }), {
      kind: 'response',
      status: '308 Permanent Redirect',
      headers: 'Location: https://secure.example.com:8443/pay?x=1',
    });
    assert.deepEqual(evaluateTrafficScript(ruleText(out, ROUTE), { host: 'plain.example.com', url: '/' }), {
      kind: 'pool',
      pool: vtmName('pool', 'default.plain'),
    });
  });

  test('ssl-redirect: a port-80 VS on the discard pool whose rule answers 308 to https', () => {
    const out = renderVtm(desiredState({ virtualServices: [virtualService({ redirectToHttpsPort: 443 })] }), config);
    const vs = props(out, 'virtual_servers', VS);
    assert.deepEqual([vs.basic.port, vs.basic.pool, vs.basic.request_rules], [80, 'discard', [ROUTE]]);
    assert.deepEqual(evaluateTrafficScript(ruleText(out, ROUTE), { host: 'A.example.com:80', url: '/x?y=1' }), {
      kind: 'response',
      status: '308 Permanent Redirect',
      headers: 'Location: https://A.example.com/x?y=1',
    });
    const other = renderVtm(desiredState({ virtualServices: [virtualService({ redirectToHttpsPort: 8443 })] }), config);
    assert.equal(
      (evaluateTrafficScript(ruleText(other, ROUTE), { host: 'a.example.com', url: '/' }) as { headers: string })
        .headers,
      'Location: https://a.example.com:8443/',
    );
  });

  test('ssl-passthrough: protocol ssl without decryption; one backend needs no rule', () => {
    const out = renderVtm(
      desiredState({
        virtualServices: [
          virtualService({ port: 443, protocol: 'tls-passthrough', routes: [route('', '', 'Prefix', 'default.a')] }),
        ],
        pools: [pool('default.a')],
      }),
      config,
    );
    const vs = props(out, 'virtual_servers', VS);
    assert.deepEqual(
      [vs.basic.protocol, vs.basic.ssl_decrypt, vs.basic.pool, vs.basic.request_rules],
      ['ssl', false, POOL_A, []],
    );
  });

  test('ssl-passthrough with several hosts routes by SNI', () => {
    const out = renderVtm(
      desiredState({
        virtualServices: [
          virtualService({
            port: 443,
            protocol: 'tls-passthrough',
            routes: [
              route('a.example.com', '', 'Prefix', 'default.a'),
              route('*.b.example.com', '', 'Prefix', 'default.b'),
            ],
          }),
        ],
        pools: [pool('default.a'), pool('default.b')],
      }),
      config,
    );
    const rule = ruleText(out, ROUTE);
    assert.deepEqual(evaluateTrafficScript(rule, { host: '', url: '', sni: 'A.EXAMPLE.COM' }), {
      kind: 'pool',
      pool: POOL_A,
    });
    assert.deepEqual(evaluateTrafficScript(rule, { host: '', url: '', sni: 'x.b.example.com' }), {
      kind: 'pool',
      pool: POOL_B,
    });
    assert.deepEqual(evaluateTrafficScript(rule, { host: '', url: '', sni: 'c.example.com' }), { kind: 'discard' });
  });

  test('user request/response TrafficScript goes first in the rule lists, behind the ownership comment', () => {
    const out = renderVtm(
      desiredState({
        virtualServices: [
          virtualService({
            routes: [route('', '/', 'Prefix', 'default.a')],
            requestScript: 'http.addHeader("X-Via", "Pulse vTM");',
            responseScript: 'if (http.getResponseCode() == 500) { http.redirect("https://my.services/sorry"); }',
          }),
        ],
        pools: [pool('default.a')],
      }),
      config,
    );
    const basic = props(out, 'virtual_servers', VS).basic;
    assert.deepEqual(basic.request_rules, [vtmName('request', 'default.web'), ROUTE]);
    assert.deepEqual(basic.response_rules, [vtmName('response', 'default.web')]);
    assert.equal(
      ruleText(out, vtmName('request', 'default.web')),
      '# portolan:vtm:Ingress/c1/default/web\nhttp.addHeader("X-Via", "Pulse vTM");\n',
    );
  });

  test('virtual server customization is deep-merged over the rendered object; the ownership note survives', () => {
    const out = renderVtm(
      desiredState({
        virtualServices: [
          virtualService({
            defaultPool: 'default.a',
            customization: {
              properties: { web_cache: { enabled: true }, basic: { note: 'mine', add_x_forwarded_for: true } },
            },
          }),
        ],
        pools: [pool('default.a')],
      }),
      config,
    );
    const vs = props(out, 'virtual_servers', VS);
    assert.deepEqual(vs.web_cache, { enabled: true });
    assert.equal(vs.basic.add_x_forwarded_for, true);
    assert.equal(vs.basic.note, 'portolan:vtm:Ingress/c1/default/web');
    assert.equal(vs.basic.port, 80, 'rendered keys not named by the customization stay');
  });

  test('shared addresses ignore user TrafficScript and customization, with a warning', () => {
    const out = renderVtm(
      desiredState({
        virtualServices: [
          virtualService({
            address: { kind: 'shared', ip: '192.0.2.20' },
            defaultPool: 'default.a',
            requestScript: 'x();',
            customization: { properties: { web_cache: { enabled: true } } },
          }),
        ],
        pools: [pool('default.a')],
      }),
      config,
    );
    const vs = props(out, 'virtual_servers', VS);
    assert.deepEqual([vs.basic.request_rules, vs.web_cache], [[], undefined]);
    assert.deepEqual(
      out.conditions.map((c) => [c.type, c.reason]),
      [['Warning', 'SharedAddressIgnoresCustomization']],
    );
  });
});
