import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DesiredState } from '@portolan/desired-state';
import { startLoadMasterEmulator, type LoadMasterEmulator } from '@portolan/loadmaster-emulator';
import { LoadMasterDriver } from './loadmaster-driver.ts';
import { CallThrottle } from './adapters/call-throttle.ts';
import { ownerMark } from './core/owner-mark.ts';
import { converge } from './testing/converge.ts';
import { binding, certificate, desiredState, member, pool, route, virtualService } from './testing/desired-builder.ts';

let emulator: LoadMasterEmulator;
/** All drivers of these tests talk to one emulator: they share its rate limit, so they share one throttle. */
const throttle = new CallThrottle(25);
let tls: { certificatePem: string; privateKeyPem: string };

before(async () => {
  emulator = await startLoadMasterEmulator({ port: 0, users: { bal: 'secret-pw' }, rateLimit: true, https: true });
  const dir = mkdtempSync(join(tmpdir(), 'lm-driver-test-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        join(dir, 'k'),
        '-out',
        join(dir, 'c'),
        '-days',
        '2',
        '-subj',
        '/CN=shop.example.com',
      ],
      { stdio: 'ignore' },
    );
    tls = { certificatePem: readFileSync(join(dir, 'c'), 'utf8'), privateKeyPem: readFileSync(join(dir, 'k'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
after(async () => {
  await emulator.close();
});

function driverFor(appliance: string, url = emulator.url): LoadMasterDriver {
  return new LoadMasterDriver({
    throttle,
    appliance,
    url,
    credentials: { user: 'bal', password: 'secret-pw' },
    insecureTls: true,
    maxCallsPer3s: 25,
    defaultAddress: '10.0.0.99',
  });
}

function shop(members: ReturnType<typeof member>[]): DesiredState {
  return desiredState({
    virtualServices: [
      virtualService(
        'shop-443',
        [route('shop.example.com', '/api', 'Prefix', 'api'), route('shop.example.com', '/', 'Prefix', 'front')],
        {
          port: 443,
          protocol: 'https',
          certificates: ['shop-tls'],
        },
      ),
    ],
    pools: [pool('api', members), pool('front', [member('10.1.1.1', 80)])],
    certificates: [certificate('shop-tls', 'fp1')],
  });
}

const writesSince = (n: number): string[] => emulator.writeLog.slice(n).map((w) => w.command);

test('Ingress mode against the emulator: converge from empty, route exactly, then nothing to do', async () => {
  const driver = driverFor('ing1');
  try {
    const first = await converge(driver, shop([member('10.1.0.1', 8080), member('10.1.0.2', 8080)]), {
      'default/shop-tls': tls,
    });
    assert.deepEqual(
      first.results.filter((r) => !r.ok),
      [],
    );
    const vs = emulator.store.vsByAddress('10.0.0.10', '443', 'tcp');
    assert.ok(vs !== undefined);
    assert.equal(vs.props['NickName'], ownerMark('ing1', 'vs', 'shop-443'));
    assert.equal(vs.props['SSLAcceleration'], true);
    const subs = emulator.store.subVssOf(vs);
    const api = subs.find((s) => s.props['NickName'] === ownerMark('ing1', 'sv', 'api'));
    assert.deepEqual(
      api?.realServers.map((r) => `${r.addr}:${r.port}`),
      ['10.1.0.1:8080', '10.1.0.2:8080'],
    );
    const routed = (host: string, path: string): string => {
      const r = emulator.route(vs.index, { host, path });
      return r.kind === 'subvs' ? String(emulator.store.vsByIndex(r.vsIndex)?.props['NickName']) : r.kind;
    };
    assert.equal(routed('shop.example.com', '/api/items'), ownerMark('ing1', 'sv', 'api'));
    assert.equal(routed('shop.example.com', '/apix'), ownerMark('ing1', 'sv', 'front'));
    assert.equal(routed('other.example.com', '/api'), 'none');
    const again = await converge(driver, shop([member('10.1.0.1', 8080), member('10.1.0.2', 8080)]), {
      'default/shop-tls': tls,
    });
    assert.deepEqual(again.ops, []);
    const log = JSON.stringify(emulator.writeLog);
    assert.doesNotMatch(log, /PRIVATE KEY|secret-pw/);
  } finally {
    await driver.close();
  }
});

test('Ingress mode: an unreadable TLS Secret is a retryable result, not a crash, and nothing leaks', async () => {
  const driver = driverFor('tls1');
  try {
    const desired = desiredState({
      virtualServices: [
        virtualService('t-443', [route('t.example.com', '/', 'Prefix', 'p')], {
          address: { kind: 'dedicated', ip: '10.0.0.13' },
          port: 443,
          protocol: 'https',
          certificates: ['missing'],
        }),
      ],
      pools: [pool('p', [])],
      certificates: [certificate('missing', 'fp9')],
    });
    const { results } = await converge(driver, desired, {});
    assert.deepEqual(
      results[0] === undefined ? null : { ok: results[0].ok, code: 'code' in results[0] ? results[0].code : '' },
      { ok: false, code: 'SecretUnavailable' },
    );
    await converge(driver, desiredState({}));
  } finally {
    await driver.close();
  }
});

test('Ingress mode: a one-endpoint change is one write call', async () => {
  const driver = driverFor('ing1');
  try {
    const mark = emulator.writeLog.length;
    await converge(driver, shop([member('10.1.0.1', 8080), member('10.1.0.2', 8080), member('10.1.0.3', 8080)]), {
      'default/shop-tls': tls,
    });
    assert.deepEqual(writesSince(mark), ['addrs']);
    const mark2 = emulator.writeLog.length;
    await converge(driver, shop([member('10.1.0.1', 8080), member('10.1.0.2', 8080)]), { 'default/shop-tls': tls });
    assert.deepEqual(writesSince(mark2), ['delrs']);
  } finally {
    await driver.close();
  }
});

test('Ingress mode: a real server and then the whole VS deleted on the LoadMaster are recreated', async () => {
  const driver = driverFor('ing1');
  const desired = shop([member('10.1.0.1', 8080), member('10.1.0.2', 8080)]);
  try {
    const vs = emulator.store.vsByAddress('10.0.0.10', '443', 'tcp');
    const api =
      vs === undefined
        ? undefined
        : emulator.store.subVssOf(vs).find((s) => s.props['NickName'] === ownerMark('ing1', 'sv', 'api'));
    const rs = api?.realServers.find((r) => r.addr === '10.1.0.2');
    assert.ok(api !== undefined && rs !== undefined);
    emulator.store.deleteRealServer(api.index, rs.rsIndex);
    const mark = emulator.writeLog.length;
    await converge(driver, desired, { 'default/shop-tls': tls });
    assert.deepEqual(writesSince(mark), ['addrs']);

    assert.ok(vs !== undefined && emulator.store.deleteVs(vs.index));
    const recreated = await converge(driver, desired, { 'default/shop-tls': tls });
    assert.deepEqual(
      recreated.results.filter((r) => !r.ok),
      [],
    );
    const back = emulator.store.vsByAddress('10.0.0.10', '443', 'tcp');
    assert.ok(back !== undefined && back.index !== vs.index);
    assert.equal(emulator.store.subVssOf(back).length, 2);
    assert.deepEqual((await converge(driver, desired, { 'default/shop-tls': tls })).ops, []);
  } finally {
    await driver.close();
  }
});

test('weighted backends: wrr on the canary SubVS and passthrough VS, then nothing to do; drift is one modvs', async () => {
  const driver = driverFor('wrr1');
  const address = { kind: 'dedicated' as const, ip: '10.0.0.15' };
  const canary = [
    { ...member('10.1.5.1', 80), weight: 90 },
    { ...member('10.1.5.2', 80), weight: 10 },
  ];
  const desired = desiredState({
    virtualServices: [
      virtualService(
        'w-80',
        [route('a.example.com', '/', 'Prefix', 'canary'), route('b.example.com', '/', 'Prefix', 'even')],
        { address },
      ),
      virtualService('w-443', [route('a.example.com', '/', 'Prefix', 'canary')], {
        address,
        port: 443,
        protocol: 'tls-passthrough',
      }),
    ],
    pools: [pool('canary', canary), pool('even', [member('10.1.5.3', 80), member('10.1.5.4', 80)])],
  });
  try {
    assert.deepEqual(
      (await converge(driver, desired)).results.filter((r) => !r.ok),
      [],
    );
    const web = emulator.store.vsByAddress('10.0.0.15', '80', 'tcp');
    assert.ok(web !== undefined);
    const sub = (pool: string) =>
      emulator.store.subVssOf(web).find((s) => s.props['NickName'] === ownerMark('wrr1', 'sv', pool));
    assert.deepEqual([sub('canary')?.props['Schedule'], sub('even')?.props['Schedule']], ['wrr', 'rr']);
    assert.deepEqual(
      sub('canary')?.realServers.map((r) => r.weight),
      [90, 10],
    );
    assert.equal(emulator.store.vsByAddress('10.0.0.15', '443', 'tcp')?.props['Schedule'], 'wrr');
    assert.deepEqual((await converge(driver, desired)).ops, [], 'read back as written');
    const changed = sub('canary');
    assert.ok(changed !== undefined);
    changed.props['Schedule'] = 'rr';
    const mark = emulator.writeLog.length;
    await converge(driver, desired);
    assert.deepEqual(writesSince(mark), ['modvs']);
    assert.equal(sub('canary')?.props['Schedule'], 'wrr');
    await converge(driver, desiredState({}));
  } finally {
    await driver.close();
  }
});

test('Ingress mode: deleting the Ingress removes everything it created and nothing else', async () => {
  const driver = driverFor('ing1');
  try {
    const otherDriver = driverFor('other');
    await converge(
      otherDriver,
      desiredState({
        virtualServices: [virtualService('keep-80', [], { address: { kind: 'dedicated', ip: '10.0.0.11' } })],
      }),
    );
    await otherDriver.close();
    const result = await converge(driver, desiredState({}));
    assert.deepEqual(
      result.results.filter((r) => !r.ok),
      [],
    );
    assert.equal(emulator.store.vsByAddress('10.0.0.10', '443', 'tcp'), undefined);
    assert.deepEqual(
      emulator.store.state.rules.filter((r) => r.name.startsWith('ptl_ing1_')),
      [],
    );
    assert.deepEqual(
      emulator.store.state.certificates.filter((c) => c.name.startsWith('ptl_ing1_')),
      [],
    );
    assert.ok(
      emulator.store.vsByAddress('10.0.0.11', '80', 'tcp') !== undefined,
      "another appliance's VS is untouched",
    );
  } finally {
    await driver.close();
  }
});

test('Service mode: real servers on an existing VS; hand-deleted ones come back; scaling; a deleted VS is reported, not recreated', async () => {
  const driver = driverFor('svc1');
  const bound = emulator.store.vsByAddress('10.0.0.11', '80', 'tcp');
  assert.ok(bound !== undefined);
  try {
    const byAddress = desiredState({
      bindings: [binding('10.0.0.11:80:tcp', 'echo', [member('10.2.0.1', 8080), member('10.2.0.2', 8080)])],
    });
    assert.deepEqual(
      (await converge(driver, byAddress)).results.filter((r) => !r.ok),
      [],
    );
    assert.deepEqual(bound.realServers.map((r) => r.addr).sort(), ['10.2.0.1', '10.2.0.2']);
    const byIndex = desiredState({
      bindings: [binding(String(bound.index), 'echo', [member('10.2.0.1', 8080), member('10.2.0.2', 8080)])],
    });
    assert.deepEqual((await converge(driver, byIndex)).ops, [], 'index and address name the same VS');

    emulator.store.deleteRealServer(bound.index, bound.realServers[0]?.rsIndex ?? -1);
    let mark = emulator.writeLog.length;
    await converge(driver, byIndex);
    assert.deepEqual(writesSince(mark), ['addrs']);

    mark = emulator.writeLog.length;
    await converge(
      driver,
      desiredState({
        bindings: [binding(String(bound.index), 'echo', [member('10.2.0.2', 8080), member('10.2.0.3', 8080)])],
      }),
    );
    assert.deepEqual(writesSince(mark).sort(), ['addrs', 'delrs']);
    assert.deepEqual(bound.realServers.map((r) => r.addr).sort(), ['10.2.0.2', '10.2.0.3']);

    emulator.store.deleteVs(bound.index);
    mark = emulator.writeLog.length;
    const vsCount = emulator.store.state.virtualServices.length;
    const gone = await converge(driver, byIndex);
    assert.deepEqual(gone.results, [
      { ok: false, code: 'VirtualServiceNotFound', message: gone.ops[0]?.summary, retryable: false },
    ]);
    assert.deepEqual(writesSince(mark), []);
    assert.equal(emulator.store.state.virtualServices.length, vsCount);
  } finally {
    await driver.close();
  }
});

test('rate limit: a large converge never exceeds 30 calls in any 3 s window and no call is dropped', async () => {
  const driver = driverFor('bulk');
  const members = Array.from({ length: 40 }, (_, i) => member(`10.5.${Math.floor(i / 200)}.${(i % 200) + 1}`, 8080));
  try {
    const start = emulator.calls.length;
    const writes = emulator.writeLog.length;
    const result = await converge(
      driver,
      desiredState({
        virtualServices: [
          virtualService('bulk-80', [route('bulk.example.com', '/', 'Prefix', 'bulk')], {
            address: { kind: 'dedicated', ip: '10.0.0.12' },
          }),
        ],
        pools: [pool('bulk', members)],
      }),
    );
    assert.deepEqual(
      result.results.filter((r) => !r.ok),
      [],
    );
    assert.equal(emulator.droppedCalls, 0);
    const maxInWindow = (times: number[]): number =>
      Math.max(0, ...times.map((t) => times.filter((u) => u >= t && u < t + 3000).length));
    assert.ok(emulator.writeLog.length - writes > 30, 'the converge needed more than 30 writes');
    assert.ok(maxInWindow(emulator.writeLog.slice(writes).map((w) => w.at)) <= 30);
    assert.ok(maxInWindow(emulator.calls.slice(start).map((c) => c.at)) <= 30);
    await converge(driver, desiredState({}));
  } finally {
    await driver.close();
  }
});
