import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseOwnerNote } from '@portolan/appliance-driver';
import type { JsonObject } from '@portolan/desired-state';
import { evaluateTrafficScript } from '../testing/evaluate-traffic-script.ts';
import { certificate, desiredState, member, pool, route, virtualService } from '../testing/desired-fixtures.ts';
import { renderVtm } from './render-vtm.ts';
import { config, POOL_A, props, ROUTE, ruleText, VS } from '../testing/render-reading.ts';
import { MAX_NAME_LENGTH, vtmName } from './vtm-names.ts';

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

test('Gateway API wildcards (wildcardLabels any) match any number of labels, never the bare domain', () => {
  const routes = [
    route('*.b.example.com', '/', 'Prefix', 'default.deep'),
    route('*.example.com', '/', 'Prefix', 'default.wild'),
  ];
  const out = renderVtm(desiredState({ virtualServices: [virtualService({ routes, wildcardLabels: 'any' })] }), config);
  const use = (host: string) => evaluateTrafficScript(ruleText(out, ROUTE), { host, url: '/x' });
  assert.deepEqual(use('a.example.com'), { kind: 'pool', pool: vtmName('pool', 'default.wild') });
  assert.deepEqual(use('x.y.c.example.com'), { kind: 'pool', pool: vtmName('pool', 'default.wild') });
  assert.deepEqual(use('x.y.b.example.com'), { kind: 'pool', pool: vtmName('pool', 'default.deep') });
  const bare = use('example.com');
  assert.equal(bare.kind === 'response' && bare.status, '404 Not Found');
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
      load_balancing: { algorithm: 'weighted_round_robin' },
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

  test('weights: unequal after clamping balance weighted_round_robin; equal ones leave the algorithm unset', () => {
    const algorithm = (weights: number[]): unknown => {
      const members = weights.map((weight, i) => member(`10.1.0.${i + 1}`, 80, { weight }));
      const out = renderVtm(desiredState({ pools: [pool('default.a', { members })] }), config);
      return (props(out, 'pools', POOL_A) as { load_balancing?: { algorithm: string } }).load_balancing?.algorithm;
    };
    assert.equal(algorithm([90, 10]), 'weighted_round_robin', 'a 90/10 canary');
    assert.equal(algorithm([1, 1, 1]), undefined, 'equal weights: rendered as before weighted backends');
    assert.equal(algorithm([150, 300]), undefined, 'both clamp to 100: equal on the appliance');
    assert.equal(algorithm([7]), undefined, 'one node');
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
