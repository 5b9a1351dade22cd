import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonObject } from '@portolan/desired-state';
import { certificate, desiredState, member, pool, route, virtualService } from '../testing/desired-fixtures.ts';
import { deepMerge } from './deep-merge.ts';
import { diffVtm } from './diff-vtm.ts';
import { renderVtm, type VtmRenderConfig } from './render-vtm.ts';
import { vtmName } from './vtm-names.ts';
import type { VtmObject, VtmObjects } from './vtm-objects.ts';

const config: VtmRenderConfig = { appliance: 'vtm', defaultTrafficIpGroup: null, machines: ['tm-a'] };

function world(members = [member('10.1.0.1'), member('10.1.0.2')]): VtmObjects {
  return renderVtm(
    desiredState({
      virtualServices: [
        virtualService({
          port: 443,
          protocol: 'https',
          certificates: ['default.tls'],
          routes: [route('a.example.com', '/', 'Prefix', 'default.a')],
        }),
      ],
      pools: [
        pool('default.a', {
          members,
          persistence: { type: 'source-ip', cookie: '', vendor: null },
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
        }),
      ],
      certificates: [certificate('default.tls', ['a.example.com'])],
    }),
    config,
  );
}

/** What a read-back looks like: the appliance adds defaults to every object and every table row. */
function asReadBack(objects: VtmObjects): VtmObjects {
  return {
    conditions: [],
    objects: objects.objects.map((o): VtmObject => {
      if (o.type === 'rules') return o;
      const { secret: _secret, ...rest } = o;
      let properties = deepMerge(o.properties, { basic: { some_default: 3 }, extra_section: { x: false } });
      const basic = properties['basic'] as JsonObject;
      if (Array.isArray(basic['nodes_table'])) {
        properties = deepMerge(properties, {
          basic: {
            nodes_table: (basic['nodes_table'] as JsonObject[]).map((r) => ({ ...r, priority: 1, source_ip: '' })),
          },
        });
      }
      return { ...rest, properties };
    }),
  };
}

describe('diffVtm', () => {
  test('from nothing: every object is created, children before parents', () => {
    const ops = diffVtm(world(), { objects: [], conditions: [] });
    assert.deepEqual(
      ops.map((o) => `${o.action} ${o.objectType}`),
      [
        'create rules',
        'create monitors',
        'create persistence',
        'create ssl/server_keys',
        'create pools',
        'create traffic_ip_groups',
        'create virtual_servers',
      ],
    );
  });

  test('a read-back that already matches (defaults added by the appliance) gives zero operations', () => {
    assert.deepEqual(diffVtm(world(), asReadBack(world())), []);
  });

  test('one endpoint change is exactly one PUT of the pool, carrying the whole rendered object', () => {
    const next = world([member('10.1.0.1'), member('10.1.0.3')]);
    const ops = diffVtm(next, asReadBack(world()));
    const poolObject = next.objects.find((o) => o.type === 'pools');
    assert.ok(poolObject !== undefined && poolObject.type !== 'rules');
    assert.deepEqual(ops, [
      {
        objectType: 'pools',
        objectName: vtmName('pool', 'default.a'),
        action: 'update',
        payload: { properties: poolObject.properties },
        summary: `update pools ${vtmName('pool', 'default.a')}`,
      },
    ]);
  });

  test('weighted pool: converged is zero operations; an algorithm changed out of band is rewritten once', () => {
    const canary = world([member('10.1.0.1', 8080, { weight: 90 }), member('10.1.0.2', 8080, { weight: 10 })]);
    const pool = canary.objects.find((o) => o.type === 'pools');
    assert.ok(pool !== undefined && pool.type !== 'rules');
    assert.deepEqual(pool.properties['load_balancing'], { algorithm: 'weighted_round_robin' });
    const observed = asReadBack(canary);
    assert.deepEqual(diffVtm(canary, observed), [], 'read back as written: nothing to do');
    const drifted: VtmObjects = {
      ...observed,
      objects: observed.objects.map((o) =>
        o.type === 'pools'
          ? { ...o, properties: deepMerge(o.properties, { load_balancing: { algorithm: 'round_robin' } }) }
          : o,
      ),
    };
    assert.deepEqual(
      diffVtm(canary, drifted).map((o) => `${o.action} ${o.objectType}`),
      ['update pools'],
    );
    assert.deepEqual(
      diffVtm(world(), asReadBack(world())),
      [],
      'equal weights: no algorithm rendered, so none is compared',
    );
  });

  test('a changed rule text is one rule update; a rotated certificate one key update naming only the Secret', () => {
    const observed = asReadBack(world());
    const rotated = renderVtm(
      desiredState({
        virtualServices: [
          virtualService({
            port: 443,
            protocol: 'https',
            certificates: ['default.tls'],
            routes: [route('a.example.com', '/v2', 'Prefix', 'default.a')],
          }),
        ],
        pools: [
          pool('default.a', {
            members: [member('10.1.0.1'), member('10.1.0.2')],
            persistence: { type: 'source-ip', cookie: '', vendor: null },
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
          }),
        ],
        certificates: [certificate('default.tls', ['a.example.com'], 'ef'.repeat(32))],
      }),
      config,
    );
    const ops = diffVtm(rotated, observed);
    assert.deepEqual(
      ops.map((o) => `${o.action} ${o.objectType}`),
      ['update rules', 'update ssl/server_keys'],
    );
    assert.deepEqual(ops[1]?.payload, {
      properties: { basic: { note: `portolan:vtm:Secret/c1/default/default.tls@${'ef'.repeat(8)}` } },
      secret: { cluster: 'c1', kind: 'Secret', namespace: 'default', name: 'default.tls' },
    });
  });

  test('drift on a key we set (port changed by hand) is corrected; keys we never set are left alone', () => {
    const observed = asReadBack(world());
    const drifted = observed.objects.map((o) =>
      o.type === 'virtual_servers' ? { ...o, properties: deepMerge(o.properties, { basic: { port: 8443 } }) } : o,
    );
    const ops = diffVtm(world(), { objects: drifted, conditions: [] });
    assert.deepEqual(
      ops.map((o) => `${o.action} ${o.objectName}`),
      [`update ${vtmName('vs', 'default.web')}`],
    );
  });

  test('deleting everything goes parents first', () => {
    const ops = diffVtm({ objects: [], conditions: [] }, asReadBack(world()));
    assert.deepEqual(
      ops.map((o) => `${o.action} ${o.objectType}`),
      [
        'delete virtual_servers',
        'delete traffic_ip_groups',
        'delete pools',
        'delete ssl/server_keys',
        'delete persistence',
        'delete monitors',
        'delete rules',
      ],
    );
    assert.ok(ops.every((o) => o.payload === null));
  });

  test('replacing a pool: the new pool and the VS are written before the old pool is deleted', () => {
    const before = renderVtm(
      desiredState({ virtualServices: [virtualService({ defaultPool: 'default.a' })], pools: [pool('default.a')] }),
      config,
    );
    const after = renderVtm(
      desiredState({ virtualServices: [virtualService({ defaultPool: 'default.b' })], pools: [pool('default.b')] }),
      config,
    );
    const ops = diffVtm(after, asReadBack(before));
    assert.deepEqual(
      ops.map((o) => `${o.action} ${o.objectName}`),
      [
        `create ${vtmName('pool', 'default.b')}`,
        `update ${vtmName('vs', 'default.web')}`,
        `delete ${vtmName('pool', 'default.a')}`,
      ],
    );
  });
});

describe('diffVtm: ownership', () => {
  test('a name held by an object that is not ours is neither written nor deleted', () => {
    const desired = renderVtm(desiredState({ pools: [pool('default.a'), pool('default.b')] }), config);
    const observed: VtmObjects = { objects: [], conditions: [], foreign: [`pools/${vtmName('pool', 'default.a')}`] };
    assert.deepEqual(
      diffVtm(desired, observed).map((o) => `${o.action} ${o.objectName}`),
      [`create ${vtmName('pool', 'default.b')}`],
    );
    assert.deepEqual(diffVtm({ objects: [], conditions: [] }, observed), []);
  });
});

describe('diffVtm: shared addresses reuse an existing traffic IP group (the documented vTM rule)', () => {
  const shared = renderVtm(
    desiredState({
      virtualServices: [virtualService({ address: { kind: 'shared', ip: '192.0.2.50' }, defaultPool: 'default.a' })],
      pools: [pool('default.a')],
    }),
    config,
  );

  test('an existing group with the address is used and ours is not created', () => {
    const ops = diffVtm(shared, { objects: [], conditions: [], externalTrafficIps: { '192.0.2.50': 'Shared-TIG' } });
    assert.deepEqual(
      ops.map((o) => `${o.action} ${o.objectType}`),
      ['create pools', 'create virtual_servers'],
    );
    const vs = ops[1]?.payload?.['properties'] as { basic: { listen_on_traffic_ips: string[] } };
    assert.deepEqual(vs.basic.listen_on_traffic_ips, ['Shared-TIG']);
  });

  test('without one, ours is created; a dedicated address never adopts', () => {
    assert.ok(
      diffVtm(shared, { objects: [], conditions: [], externalTrafficIps: {} }).some(
        (o) => o.objectType === 'traffic_ip_groups',
      ),
    );
    const dedicated = renderVtm(
      desiredState({
        virtualServices: [
          virtualService({ address: { kind: 'dedicated', ip: '192.0.2.50' }, defaultPool: 'default.a' }),
        ],
        pools: [pool('default.a')],
      }),
      config,
    );
    assert.ok(
      diffVtm(dedicated, { objects: [], conditions: [], externalTrafficIps: { '192.0.2.50': 'Shared-TIG' } }).some(
        (o) => o.objectType === 'traffic_ip_groups',
      ),
    );
  });
});
