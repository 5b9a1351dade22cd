import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { DesiredState, Route } from '@portolan/desired-state';
import { startLoadMasterEmulator, type LoadMasterEmulator, type LmHttpRequest } from '@portolan/loadmaster-emulator';
import { LoadMasterDriver } from './loadmaster-driver.ts';
import { converge } from './testing/converge.ts';
import { desiredState, member, pool, ref, route, virtualService } from './testing/desired-builder.ts';

let emulator: LoadMasterEmulator;
let driver: LoadMasterDriver;

before(async () => {
  emulator = await startLoadMasterEmulator({ port: 0, users: { bal: 'pw' }, https: false });
  driver = new LoadMasterDriver({
    appliance: 'gw1',
    url: emulator.url,
    credentials: { user: 'bal', password: 'pw' },
    insecureTls: true,
    maxCallsPer3s: 1000,
    defaultAddress: null,
  });
});
after(async () => {
  await driver.close();
  await emulator.close();
});

const HOST = 'shop.example.com';
const hr = (path: string, poolName: string, extra: Partial<Route>): Route => ({
  ...route(HOST, path, 'Prefix', poolName),
  source: ref('HTTPRoute', 'default', `hr-${poolName}`),
  ...extra,
});

/**
 * Routes in precedence order: two header/method-conditioned routes on /api before the plain /api route, a
 * regex-header route on / before the plain / route. The canary route also edits request and response headers.
 */
function gateway(): DesiredState {
  const routes: Route[] = [
    hr('/api', 'canary', {
      headers: [{ name: 'X-Env', type: 'Exact', value: 'canary' }],
      filters: {
        requestHeaders: {
          set: [{ name: 'X-Route', value: 'canary' }],
          add: [{ name: 'X-Add', value: 'a "q" & b/c' }],
          remove: ['X-Secret'],
        },
        responseHeaders: { set: [{ name: 'X-Served-By', value: 'canary' }], add: [], remove: ['Server'] },
      },
    }),
    hr('/api', 'post', { method: 'POST' }),
    hr('/api', 'api', {}),
    hr('/', 'versioned', { headers: [{ name: 'x-version', type: 'Regex', value: 'v[0-9]+' }] }),
    hr('/', 'front', {}),
  ];
  const pools = ['canary', 'post', 'api', 'versioned', 'front'].map((name, i) =>
    pool(name, [member(`10.9.0.${i + 1}`, 80)]),
  );
  return desiredState({
    virtualServices: [virtualService('gw-80', routes, { address: { kind: 'dedicated', ip: '10.0.0.50' } })],
    pools,
  });
}

/** The pool (by its member's address) a request lands on. */
function poolOf(request: Partial<LmHttpRequest>): string {
  const vs = emulator.store.vsByAddress('10.0.0.50', '80', 'tcp');
  assert.ok(vs !== undefined);
  const r = emulator.route(vs.index, { host: HOST, path: '/', ...request });
  if (r.kind !== 'subvs') return r.kind;
  const addr = emulator.store.vsByIndex(r.vsIndex)?.realServers[0]?.addr ?? '';
  return ['canary', 'post', 'api', 'versioned', 'front'][Number(addr.split('.')[3]) - 1] ?? addr;
}

function assertRouting(): void {
  const cases: [Partial<LmHttpRequest>, string][] = [
    [{ path: '/api/x', headers: { 'x-env': 'canary' } }, 'canary'],
    [{ path: '/api/x', headers: { 'X-Env': 'CANARY' } }, 'api'],
    [{ path: '/api/x', headers: { 'X-Env': 'canary-1' } }, 'api'],
    [{ path: '/api/x', method: 'POST', headers: { 'X-Env': 'canary' } }, 'canary'],
    [{ path: '/api/x', method: 'POST' }, 'post'],
    [{ path: '/api' }, 'api'],
    [{ path: '/api', headers: { 'X-Version': 'v2' } }, 'api'],
    [{ path: '/web', headers: { 'X-Version': 'v2' } }, 'versioned'],
    [{ path: '/web', headers: { 'X-Version': 'v2x' } }, 'front'],
    [{ path: '/apix', method: 'POST', headers: { 'X-Env': 'canary' } }, 'front'],
    [{ host: 'other.example.com', path: '/api', headers: { 'X-Env': 'canary' } }, 'none'],
  ];
  for (const [request, want] of cases) assert.equal(poolOf(request), want, JSON.stringify(request));
}

test('header and method matches with header edits: one pass, exact precedence, then nothing to do', async () => {
  const first = await converge(driver, gateway());
  assert.deepEqual(
    first.results.filter((r) => !r.ok),
    [],
  );
  assertRouting();
  const vs = emulator.store.vsByAddress('10.0.0.50', '80', 'tcp');
  assert.ok(vs !== undefined);
  const request = { host: HOST, path: '/api', headers: { 'X-Env': 'canary', 'x-route': 'old', 'X-Secret': 's' } };
  const ex = emulator.exchange(vs.index, request, [
    ['Server', 'nginx'],
    ['X-Served-By', 'pod'],
  ]);
  assert.deepEqual(ex.requestHeaders, [
    ['X-Env', 'canary'],
    ['X-Route', 'canary'],
    ['X-Add', 'a "q" & b/c'],
  ]);
  assert.deepEqual(ex.responseHeaders, [['X-Served-By', 'canary']]);
  const plain = emulator.exchange(vs.index, { host: HOST, path: '/api', headers: { 'X-Secret': 's' } });
  assert.deepEqual(plain.requestHeaders, [['X-Secret', 's']], 'edits only on the canary route');
  assert.deepEqual((await converge(driver, gateway())).ops, []);
});

test('drift in flags, rule lists and header rules is repaired, then nothing to do', async () => {
  await converge(driver, gateway());
  const vs = emulator.store.vsByAddress('10.0.0.50', '80', 'tcp');
  assert.ok(vs !== undefined);
  const state = emulator.store.state;
  for (const rule of state.rules) if (rule.onlyOnFlag !== 0 && rule.type === 0) rule.onlyOnFlag = 0;
  vs.rules.pre = [...vs.rules.pre].reverse();
  const canarySub = emulator.store.subVssOf(vs).find((s) => s.rules.request.length > 0);
  assert.ok(canarySub !== undefined);
  canarySub.rules.request = canarySub.rules.request.slice(1);
  const add = state.rules.find((r) => r.type === 1 && r.header === 'X-Add');
  assert.ok(add !== undefined);
  add.replacement = 'tampered';
  assert.notEqual(poolOf({ path: '/api/x', headers: { 'X-Env': 'other' } }), 'api', 'the drift breaks routing');
  const repair = await converge(driver, gateway());
  assert.deepEqual(
    repair.results.filter((r) => !r.ok),
    [],
  );
  assert.ok(repair.ops.length > 0);
  assertRouting();
  const ex = emulator.exchange(vs.index, { host: HOST, path: '/api', headers: { 'X-Env': 'canary' } });
  assert.deepEqual(ex.requestHeaders, [
    ['X-Env', 'canary'],
    ['X-Route', 'canary'],
    ['X-Add', 'a "q" & b/c'],
  ]);
  assert.deepEqual((await converge(driver, gateway())).ops, []);
});

test('dropping the conditions and edits removes their rules; plain routes render as before', async () => {
  const plain = gateway();
  const vsPlain = plain.virtualServices[0];
  assert.ok(vsPlain !== undefined);
  const routes = vsPlain.routes.filter((r) => r.headers === undefined && r.method === undefined);
  const desired = { ...plain, virtualServices: [{ ...vsPlain, routes }] };
  const result = await converge(driver, desired);
  assert.deepEqual(
    result.results.filter((r) => !r.ok),
    [],
  );
  const vs = emulator.store.vsByAddress('10.0.0.50', '80', 'tcp');
  assert.deepEqual(vs?.rules.pre, []);
  assert.deepEqual(
    emulator.store.state.rules.filter((r) => r.type !== 0 || r.setOnMatch !== 0 || r.onlyOnFlag !== 0),
    [],
  );
  assert.equal(poolOf({ path: '/api/x', headers: { 'X-Env': 'canary' } }), 'api');
  assert.deepEqual((await converge(driver, desired)).ops, []);
});
