import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseOwnerNote } from '@portolan/appliance-driver';
import type { JsonObject } from '@portolan/desired-state';
import { evaluateTrafficScript } from '../testing/evaluate-traffic-script.ts';
import {
  certificate,
  desiredState,
  ingress,
  member,
  pool,
  route,
  virtualService,
} from '../testing/desired-fixtures.ts';
import { renderVtm, type VtmRenderConfig } from './render-vtm.ts';
import { MAX_NAME_LENGTH, vtmName } from './vtm-names.ts';
import type { VtmObject, VtmObjects } from './vtm-objects.ts';

const config: VtmRenderConfig = { appliance: 'vtm', defaultTrafficIpGroup: 'Web-TIG', machines: ['tm-a', 'tm-b'] };

function find(out: VtmObjects, type: VtmObject['type'], name: string): VtmObject {
  const o = out.objects.find((x) => x.type === type && x.name === name);
  assert.ok(
    o !== undefined,
    `${type}/${name} rendered; have ${out.objects.map((x) => `${x.type}/${x.name}`).join(', ')}`,
  );
  return o;
}
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests read loosely typed vTM properties
function props(out: VtmObjects, type: VtmObject['type'], name: string): any {
  const o = find(out, type, name);
  assert.ok(o.type !== 'rules');
  return o.properties;
}
function ruleText(out: VtmObjects, name: string): string {
  const o = find(out, 'rules', name);
  assert.ok(o.type === 'rules');
  return o.text;
}
const VS = vtmName('vs', 'default.web');
const ROUTE = vtmName('route', 'default.web');
const POOL_A = vtmName('pool', 'default.a');
const POOL_B = vtmName('pool', 'default.b');

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

describe('renderVtm: routing rule semantics (Ingress host and path matching)', () => {
  const routes = [
    route('a.example.com', '/exact', 'Exact', 'default.exact'),
    route('a.example.com', '/foo', 'Prefix', 'default.foo'),
    route('a.example.com', '/', 'Prefix', 'default.a'),
    route('*.example.com', '/', 'Prefix', 'default.wild'),
    route('', '/any/', 'Prefix', 'default.any'),
  ];
  const cases: { name: string; host: string; url: string; want: string | 'default' | '404' }[] = [
    { name: 'Exact path matches itself', host: 'a.example.com', url: '/exact', want: 'default.exact' },
    { name: 'Exact path does not match a longer path', host: 'a.example.com', url: '/exact/more', want: 'default.a' },
    { name: 'Prefix matches the path itself', host: 'a.example.com', url: '/foo', want: 'default.foo' },
    { name: 'Prefix matches below a path element', host: 'a.example.com', url: '/foo/bar?q=1', want: 'default.foo' },
    {
      name: 'Prefix does not match a longer element (/foobar)',
      host: 'a.example.com',
      url: '/foobar',
      want: 'default.a',
    },
    { name: 'host matching ignores case and port', host: 'A.Example.COM:8080', url: '/foo/', want: 'default.foo' },
    { name: 'wildcard matches one label', host: 'b.example.com', url: '/x', want: 'default.wild' },
    { name: 'wildcard does not match two labels', host: 'c.b.example.com', url: '/any', want: 'default.any' },
    { name: 'wildcard does not match the bare domain', host: 'example.com', url: '/x', want: '404' },
    {
      name: 'trailing slash in a Prefix is ignored (/any/ matches /any)',
      host: 'zzz.test',
      url: '/any',
      want: 'default.any',
    },
    { name: 'nothing matches: 404 from the rule', host: 'zzz.test', url: '/nope', want: '404' },
  ];
  const out = renderVtm(desiredState({ virtualServices: [virtualService({ routes })] }), config);
  const withDefault = renderVtm(
    desiredState({ virtualServices: [virtualService({ routes, defaultPool: 'default.back' })] }),
    config,
  );
  for (const c of cases) {
    test(c.name, () => {
      const got = evaluateTrafficScript(ruleText(out, ROUTE), { host: c.host, url: c.url });
      if (c.want === '404') assert.equal(got.kind === 'response' && got.status, '404 Not Found');
      else assert.deepEqual(got, { kind: 'pool', pool: vtmName('pool', c.want) });
    });
  }
  test('with a default backend, unmatched requests fall through to the VS pool', () => {
    assert.deepEqual(evaluateTrafficScript(ruleText(withDefault, ROUTE), { host: 'zzz.test', url: '/nope' }), {
      kind: 'none',
    });
    assert.equal(props(withDefault, 'virtual_servers', VS).basic.pool, vtmName('pool', 'default.back'));
  });
  test('hosts and paths with quotes cannot break out of the string literal', () => {
    const tricky = renderVtm(
      desiredState({ virtualServices: [virtualService({ routes: [route('', '/a"b\\c', 'Exact', 'default.q')] })] }),
      config,
    );
    assert.deepEqual(evaluateTrafficScript(ruleText(tricky, ROUTE), { host: 'x', url: '/a"b\\c' }), {
      kind: 'pool',
      pool: vtmName('pool', 'default.q'),
    });
  });
});

describe('renderVtm: pools, monitors, persistence', () => {
  test('nodes_table from members: ip:port, draining, weight within 1-100, IPv6 bracketed', () => {
    const out = renderVtm(
      desiredState({
        pools: [
          pool('default.a', {
            members: [
              member('10.1.0.1', 80),
              member('10.1.0.2', 80, { state: 'draining', weight: 250 }),
              member('fd00::1', 80, { weight: 0 }),
            ],
          }),
        ],
      }),
      config,
    );
    assert.deepEqual(props(out, 'pools', POOL_A), {
      basic: {
        monitors: ['Connect'],
        nodes_table: [
          { node: '10.1.0.1:80', state: 'active', weight: 1 },
          { node: '10.1.0.2:80', state: 'draining', weight: 100 },
          { node: '[fd00::1]:80', state: 'active', weight: 1 },
        ],
        note: 'portolan:vtm:Service/c1/default/a',
        persistence_class: '',
      },
      ssl: { enable: false },
    });
    assert.equal(
      out.objects.filter((o) => o.type === 'monitors').length,
      0,
      'no monitor annotation: the factory TCP connect monitor',
    );
  });

  test('re-encrypt turns on TLS to the nodes', () => {
    const out = renderVtm(desiredState({ pools: [pool('default.a', { tlsToBackend: true })] }), config);
    assert.equal(props(out, 'pools', POOL_A).ssl.enable, true);
  });

  test('monitor annotation JSON is used verbatim, plus the ownership note', () => {
    const vendor = {
      properties: { basic: { type: 'http', timeout: 5, use_ssl: true }, http: { status_regex: '^403$' } },
    };
    const out = renderVtm(
      desiredState({
        pools: [
          pool('default.a', {
            monitor: {
              type: 'http',
              path: '/',
              hostHeader: '',
              expectStatus: '',
              intervalSeconds: 3,
              timeoutSeconds: 3,
              failures: 3,
              vendor,
            },
          }),
        ],
      }),
      config,
    );
    const mon = vtmName('monitor', 'default.a');
    assert.deepEqual(props(out, 'monitors', mon), {
      basic: { type: 'http', timeout: 5, use_ssl: true, note: 'portolan:vtm:Service/c1/default/a' },
      http: { status_regex: '^403$' },
    });
    assert.deepEqual(props(out, 'pools', POOL_A).basic.monitors, [mon]);
  });

  test('a neutral monitor is mapped to vTM fields', () => {
    const out = renderVtm(
      desiredState({
        pools: [
          pool('default.a', {
            monitor: {
              type: 'https',
              path: '/healthz',
              hostHeader: 'a.example.com',
              expectStatus: '^200$',
              intervalSeconds: 7,
              timeoutSeconds: 2,
              failures: 4,
              vendor: null,
            },
          }),
        ],
      }),
      config,
    );
    assert.deepEqual(props(out, 'monitors', vtmName('monitor', 'default.a')), {
      basic: {
        type: 'http',
        use_ssl: true,
        delay: 7,
        failures: 4,
        timeout: 2,
        note: 'portolan:vtm:Service/c1/default/a',
      },
      http: { host_header: 'a.example.com', path: '/healthz', status_regex: '^200$' },
    });
  });

  test('persistence annotation JSON verbatim; neutral cookie and source-ip mapped', () => {
    const per = vtmName('persist', 'default.a');
    const vendorOut = renderVtm(
      desiredState({
        pools: [
          pool('default.a', {
            persistence: {
              type: 'cookie',
              cookie: 'x',
              vendor: { properties: { basic: { type: 'cookie', cookie: 'ChocChip' } } },
            },
          }),
        ],
      }),
      config,
    );
    assert.deepEqual(props(vendorOut, 'persistence', per), {
      basic: { type: 'cookie', cookie: 'ChocChip', note: 'portolan:vtm:Service/c1/default/a' },
    });
    assert.equal(props(vendorOut, 'pools', POOL_A).basic.persistence_class, per);
    const ip = renderVtm(
      desiredState({ pools: [pool('default.a', { persistence: { type: 'source-ip', cookie: '', vendor: null } })] }),
      config,
    );
    assert.deepEqual(props(ip, 'persistence', per).basic.type, 'ip');
  });

  test('pool customization is deep-merged; nodes and note stay', () => {
    const out = renderVtm(
      desiredState({
        pools: [
          pool('default.a', {
            customization: {
              properties: { basic: { passive_monitoring: false }, load_balancing: { algorithm: 'least_connections' } },
            },
          }),
        ],
      }),
      config,
    );
    const p = props(out, 'pools', POOL_A);
    assert.deepEqual(
      [p.basic.passive_monitoring, p.load_balancing.algorithm, p.basic.nodes_table.length, p.basic.note],
      [false, 'least_connections', 1, 'portolan:vtm:Service/c1/default/a'],
    );
  });
});

describe('renderVtm: names, ownership, determinism', () => {
  const state = desiredState({
    virtualServices: [
      virtualService({
        routes: [route('a.example.com', '/', 'Prefix', 'default.a')],
        requestScript: 'x();',
        port: 443,
        protocol: 'https',
        certificates: ['default.tls'],
      }),
    ],
    pools: [
      pool('default.a', {
        monitor: {
          type: 'tcp',
          path: '',
          hostHeader: '',
          expectStatus: '',
          intervalSeconds: 3,
          timeoutSeconds: 3,
          failures: 3,
          vendor: null,
        },
        persistence: { type: 'source-ip', cookie: '', vendor: null },
      }),
    ],
    certificates: [certificate('default.tls', ['a.example.com'])],
  });

  test('every object carries our ownership note; rules in their first comment line', () => {
    const out = renderVtm(state, config);
    assert.equal(out.objects.length, 8);
    for (const o of out.objects) {
      const note =
        o.type === 'rules'
          ? (o.text.split('\n')[0] ?? '').slice(2)
          : String((o.properties['basic'] as JsonObject)['note']);
      assert.equal(parseOwnerNote(note)?.appliance, 'vtm', `${o.type}/${o.name}`);
      assert.ok(o.name.startsWith('portolan-') && o.name.length <= MAX_NAME_LENGTH, o.name);
    }
  });

  test('objects come in write order (children first), and equal inputs render equal outputs', () => {
    const out = renderVtm(state, config);
    assert.deepEqual(
      out.objects.map((o) => o.type),
      ['rules', 'rules', 'monitors', 'persistence', 'ssl/server_keys', 'pools', 'traffic_ip_groups', 'virtual_servers'],
    );
    assert.deepEqual(renderVtm(structuredClone(state), config), out);
  });

  test('names stay within the limit and distinct inputs stay distinct', () => {
    const long = `ns.${'x'.repeat(200)}`;
    assert.ok(vtmName('pool', long).length <= MAX_NAME_LENGTH);
    assert.notEqual(vtmName('pool', `${long}1`), vtmName('pool', `${long}2`));
    assert.notEqual(vtmName('pool', 'a/b'), vtmName('pool', 'a_b'), 'sanitising does not merge names');
    assert.equal(vtmName('pool', 'default.a'), 'portolan-pl-default.a');
  });
});
