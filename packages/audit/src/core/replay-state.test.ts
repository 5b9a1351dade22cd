import { test } from 'node:test';
import assert from 'node:assert/strict';
import { comparableState, differingObjects, relocateHaproxyFiles, replayableState } from './replay-state.ts';
import { listVendorObjects } from './vendor-objects.ts';

const secret = { cluster: 'c1', kind: 'Secret', namespace: 'shop', name: 'web-tls' };

test("replayableState: read-back certificates get the Secret reference of the snapshot's render (vTM, LoadMaster, HAProxy)", () => {
  const vtm = replayableState(
    'vtm',
    {
      objects: [
        { type: 'ssl/server_keys', name: 'k', properties: { basic: { note: 'n', public: 'PEM' } } },
        { type: 'pools', name: 'p', properties: {} },
      ],
      foreign: ['pools/x'],
    },
    { objects: [{ type: 'ssl/server_keys', name: 'k', properties: {}, secret }] },
  );
  assert.deepEqual(vtm, {
    objects: [
      { type: 'ssl/server_keys', name: 'k', properties: { basic: { note: 'n', public: 'PEM' } }, secret },
      { type: 'pools', name: 'p', properties: {} },
    ],
    conditions: [],
  });
  const lm = replayableState(
    'loadmaster',
    {
      virtualServices: [],
      rules: [],
      certificates: [{ name: 'c', secret: null }],
      bindings: [],
      targets: [{ index: 1 }],
      skipped: [],
    },
    { certificates: [{ name: 'c', secret }] },
  ) as { certificates: unknown[]; targets: unknown[] };
  assert.deepEqual([lm.certificates, lm.targets], [[{ name: 'c', secret }], []]);
  const hap = replayableState(
    'haproxy',
    {
      files: [],
      backends: [],
      maps: [],
      certificates: [
        { path: 'certs/a.pem', fingerprint: 'f', secret: { cluster: '', kind: 'Secret', namespace: '', name: '' } },
      ],
    },
    { certificates: [{ path: 'certs/a.pem', secret }] },
  ) as { certificates: unknown[] };
  assert.deepEqual(hap.certificates, [{ path: 'certs/a.pem', fingerprint: 'f', secret }]);
});

test('comparableState ignores appliance indexes and Secret references, not content', () => {
  const a = {
    virtualServices: [{ nickname: 'v', index: 3, realServers: [{ address: '10.0.0.1', port: 80, rsIndex: 9 }] }],
  };
  const b = {
    virtualServices: [{ nickname: 'v', index: 7, realServers: [{ address: '10.0.0.1', port: 80, rsIndex: 1 }] }],
  };
  const c = {
    virtualServices: [{ nickname: 'v', index: 7, realServers: [{ address: '10.0.0.2', port: 80, rsIndex: 1 }] }],
  };
  assert.equal(comparableState('loadmaster', a), comparableState('loadmaster', b));
  assert.notEqual(comparableState('loadmaster', a), comparableState('loadmaster', c));
});

test('relocateHaproxyFiles rewrites the config directory inside file contents only', () => {
  const moved = relocateHaproxyFiles(
    {
      files: [
        {
          path: 'haproxy.cfg',
          content:
            'stats socket /srv/hap/runtime.sock\nuse_backend %[path,map(/srv/hap/maps/x.map)]\n# /srv/happy stays\n',
        },
      ],
      backends: [],
    },
    '/srv/hap/',
    '/tmp/replay',
  );
  assert.deepEqual(moved, {
    files: [
      {
        path: 'haproxy.cfg',
        content:
          'stats socket /tmp/replay/runtime.sock\nuse_backend %[path,map(/tmp/replay/maps/x.map)]\n# /srv/happy stays\n',
      },
    ],
    backends: [],
  });
});

// One table of vendor states, one per driver and shape: a longer table, not a longer procedure.
test("listVendorObjects lists each driver's objects with a short detail; unknown shapes give nothing", () => {
  assert.deepEqual(
    listVendorObjects('vtm', {
      objects: [
        {
          type: 'pools',
          name: 'p',
          properties: {
            basic: {
              nodes_table: [
                { node: '10.0.0.1:80', state: 'active' },
                { node: '10.0.0.2:80', state: 'draining' },
              ],
            },
          },
        },
      ],
    }).map((o) => [o.id, o.detail]),
    [['pools/p', '10.0.0.1:80, 10.0.0.2:80 draining']],
  );
  assert.deepEqual(
    listVendorObjects('loadmaster', {
      virtualServices: [
        {
          nickname: 'v',
          address: '10.9.9.9',
          port: 80,
          params: { VStype: 'http' },
          realServers: [],
          subVss: [{ nickname: 's', rules: ['r'], realServers: [{ address: '10.0.0.1', port: 8080, enable: false }] }],
        },
      ],
      rules: [{ name: 'r', pattern: '^x$' }],
      certificates: [],
      bindings: [],
    }).map((o) => [o.id, o.detail]),
    [
      ['vs/v', '10.9.9.9:80 http'],
      ['subvs/s', 'in v: 10.0.0.1:8080 disabled rules 1'],
      ['rule/r', '^x$'],
    ],
  );
  assert.deepEqual(
    listVendorObjects('haproxy', {
      files: [{ path: 'haproxy.cfg', content: 'a\nb\n' }],
      backends: [
        {
          name: 'http:p',
          slots: [
            { name: 's1', address: '10.0.0.1', port: 80, state: 'ready' },
            { name: 's2', address: '', port: 0, state: 'maint' },
          ],
        },
      ],
      maps: [{ path: 'maps/x.map', entries: [['a', 'b']] }],
      certificates: [],
    }).map((o) => [o.id, o.detail]),
    [
      ['file/haproxy.cfg', '2 line(s)'],
      ['backend/http:p', '10.0.0.1:80 [1/2 slots]'],
      ['map/maps/x.map', '1 entry'],
    ],
  );
  assert.deepEqual(listVendorObjects('vtm', 'nonsense'), []);
});

test('differingObjects names the vendor objects that are missing, extra or different', () => {
  const pools = (...nodes: [string, string][]) => ({
    objects: nodes.map(([name, node]) => ({ type: 'pools', name, properties: { basic: { nodes_table: [{ node }] } } })),
  });
  assert.deepEqual(differingObjects('vtm', pools(['a', '1'], ['b', '2']), pools(['a', '1'], ['b', '3'], ['c', '4'])), [
    'pools/b',
    'pools/c',
  ]);
  assert.deepEqual(differingObjects('vtm', pools(['a', '1']), pools(['a', '1'])), []);
});
