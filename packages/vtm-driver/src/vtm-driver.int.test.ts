import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type {
  ExecutionContext,
  Operation,
  OperationResult,
  SecretResolver,
  TlsMaterial,
} from '@portolan/appliance-driver';
import type { DesiredState, ObjectRef } from '@portolan/desired-state';
import { startVtmEmulator, type VtmEmulator } from '@portolan/vtm-emulator';
import { certificate, desiredState, ingress, member, pool, route, virtualService } from './testing/desired-fixtures.ts';
import { VtmDriver, vtmName, type VtmObjects } from './index.ts';

const KEY_1 = '-----BEGIN PRIVATE KEY-----\nkey-one\n-----END PRIVATE KEY-----\n';
const KEY_2 = '-----BEGIN PRIVATE KEY-----\nkey-two\n-----END PRIVATE KEY-----\n';
const CERT = '-----BEGIN CERTIFICATE-----\ncert\n-----END CERTIFICATE-----\n';

/** The applier's resolver, reduced to a map: Secret name → material. */
class MapSecrets implements SecretResolver {
  readonly material = new Map<string, TlsMaterial>();
  async resolve(secret: ObjectRef): Promise<TlsMaterial> {
    const m = this.material.get(secret.name);
    if (m === undefined) throw new Error(`no secret ${secret.name}`);
    return m;
  }
}

function sampleState(members = [member('10.1.0.1'), member('10.1.0.2')], fingerprint = 'ab'.repeat(32)): DesiredState {
  return desiredState({
    virtualServices: [
      virtualService({
        name: 'default.web',
        port: 443,
        protocol: 'https',
        certificates: ['default.tls'],
        routes: [
          route('a.example.com', '/api', 'Prefix', 'default.api'),
          route('a.example.com', '/', 'Prefix', 'default.a'),
        ],
      }),
      virtualService({ name: 'default.web-redirect', redirectToHttpsPort: 443 }),
      virtualService({
        name: 'default.plain',
        address: { kind: 'default' },
        owners: [ingress('plain')],
        defaultPool: 'default.a',
      }),
    ],
    pools: [
      pool('default.a', { members, persistence: { type: 'cookie', cookie: 'sid', vendor: null } }),
      pool('default.api', {
        monitor: {
          type: 'http',
          path: '/healthz',
          hostHeader: '',
          expectStatus: '^200$',
          intervalSeconds: 5,
          timeoutSeconds: 2,
          failures: 3,
          vendor: null,
        },
        tlsToBackend: true,
      }),
    ],
    certificates: [certificate('default.tls', ['a.example.com'], fingerprint)],
  });
}

describe('VtmDriver against the emulator (strict references)', () => {
  let emu: VtmEmulator;
  let driver: VtmDriver;
  const secrets = new MapSecrets();
  const context = (): ExecutionContext => ({
    epoch: 1,
    snapshotId: 's-1',
    secrets,
    signal: new AbortController().signal,
  });
  const apply = async (ops: readonly Operation[]): Promise<OperationResult[]> => {
    const results: OperationResult[] = [];
    for (const op of ops) results.push(await driver.execute(op, context()));
    return results;
  };
  const readBack = (): Promise<VtmObjects> => driver.readBack(new AbortController().signal);

  before(async () => {
    emu = await startVtmEmulator({ users: { admin: 'pw' }, strict: true, machines: ['tm-a', 'tm-b'] });
    // Objects people made by hand: the default group, a user pool, and look-alikes that are not ours.
    emu.state.put('traffic_ip_groups', 'Web-TIG', {
      properties: { basic: { ipaddresses: ['192.0.2.99'], machines: ['tm-a'] } },
    });
    emu.state.put('pools', 'user-pool', { properties: { basic: { note: 'hand made' } } });
    emu.state.put('pools', 'portolan-pl-default.api', {
      properties: { basic: { note: 'portolan:other-appliance:Service/c1/default/api' } },
    });
    emu.state.put('rules', 'portolan-rt-old', 'pool.use("user-pool");\n');
    secrets.material.set('default.tls', { certificatePem: CERT, privateKeyPem: KEY_1 });
    driver = new VtmDriver({
      appliance: 'vtm',
      url: emu.url,
      username: 'admin',
      password: 'pw',
      defaultTrafficIpGroup: 'Web-TIG',
    });
  });
  after(async () => {
    await driver.close();
    await emu.close();
  });

  test("the default traffic IP group's addresses, as read back, are what Ingress status reports", async () => {
    const fresh = new VtmDriver({
      appliance: 'vtm',
      url: emu.url,
      username: 'admin',
      password: 'pw',
      defaultTrafficIpGroup: 'Web-TIG',
    });
    try {
      assert.equal(fresh.defaultAddresses(), null, 'nothing known before a read-back');
      await fresh.readBack(new AbortController().signal);
      assert.deepEqual(fresh.defaultAddresses(), ['192.0.2.99']);
      emu.state.put('traffic_ip_groups', 'Web-TIG', {
        properties: { basic: { ipaddresses: ['192.0.2.99', '192.0.2.98'] } },
      });
      await fresh.readBack(new AbortController().signal);
      assert.deepEqual(fresh.defaultAddresses(), ['192.0.2.99', '192.0.2.98'], 'every read-back refreshes them');
    } finally {
      emu.state.put('traffic_ip_groups', 'Web-TIG', { properties: { basic: { ipaddresses: ['192.0.2.99'] } } });
      await fresh.close();
    }
    const missing = new VtmDriver({
      appliance: 'vtm',
      url: emu.url,
      username: 'admin',
      password: 'pw',
      defaultTrafficIpGroup: 'No-Such-TIG',
    });
    await missing.readBack(new AbortController().signal);
    assert.deepEqual(missing.defaultAddresses(), [], 'a group missing on the appliance has no address');
    await missing.close();
  });

  test('render → diff vs read-back → execute → read-back equals desired', async () => {
    const observed = await readBack();
    assert.deepEqual(observed.objects, [], 'nothing of ours yet; look-alikes are not ours');
    assert.deepEqual([...(observed.foreign ?? [])].sort(), ['pools/portolan-pl-default.api', 'rules/portolan-rt-old']);
    const desired = driver.render(sampleState());
    assert.deepEqual(desired.conditions, []);
    const ops = driver.diff(desired, observed);
    const results = await apply(ops);
    assert.deepEqual(
      results.filter((r) => !r.ok),
      [],
      'every write accepted in strict mode: children exist before parents',
    );
    const again = await readBack();
    assert.deepEqual(driver.diff(desired, again), [], 'a second pass makes zero writes');
    const wantKeys = desired.objects
      .filter((o) => o.name !== 'portolan-pl-default.api')
      .map((o) => `${o.type}/${o.name}`);
    assert.deepEqual(
      again.objects.map((o) => `${o.type}/${o.name}`),
      wantKeys,
    );
    const tig = emu.state.get('traffic_ip_groups', vtmName('tip', '192.0.2.10'));
    assert.ok(tig?.kind === 'json');
    assert.deepEqual(tig.properties['basic']?.['machines'], ['tm-a', 'tm-b'], 'machines learned from traffic_managers');
  });

  test('every write carries the epoch and the snapshot it applies as headers', () => {
    assert.ok(emu.writeLog.length > 0);
    assert.deepEqual(
      emu.writeLog.filter((w) => w.epoch !== 1 || w.snapshot !== 's-1').map((w) => `${w.method} ${w.type}/${w.name}`),
      [],
    );
  });

  test('look-alike and hand-made objects were never written or deleted', () => {
    const touched = new Set(emu.writeLog.map((w) => `${w.type}/${w.name}`));
    for (const k of [
      'pools/user-pool',
      'pools/portolan-pl-default.api',
      'rules/portolan-rt-old',
      'traffic_ip_groups/Web-TIG',
    ])
      assert.ok(!touched.has(k), k);
    const foreign = emu.state.get('pools', 'portolan-pl-default.api');
    assert.ok(
      foreign?.kind === 'json' &&
        foreign.properties['basic']?.['note'] === 'portolan:other-appliance:Service/c1/default/api',
    );
  });

  test('the SSL key is stored with its private key; read back shows only the hash', async () => {
    const stored = emu.state.get('ssl/server_keys', vtmName('key', 'default.tls'));
    assert.ok(stored?.kind === 'json');
    assert.equal(stored.properties['basic']?.['private'], KEY_1);
    const reply = await driver.client.get('ssl/server_keys', vtmName('key', 'default.tls'));
    assert.equal((reply.json as any).properties.basic.private, createHash('sha256').update(KEY_1).digest('base64')); // eslint-disable-line @typescript-eslint/no-explicit-any
    assert.ok(!JSON.stringify(emu.writeLog).includes('key-one'), 'the write log never holds key material');
  });

  test('one endpoint change: one PUT of the pool', async () => {
    const before = emu.writeLog.length;
    const ops = driver.diff(driver.render(sampleState([member('10.1.0.1'), member('10.1.0.3')])), await readBack());
    assert.deepEqual(
      ops.map((o) => `${o.action} ${o.objectType}/${o.objectName}`),
      [`update pools/${vtmName('pool', 'default.a')}`],
    );
    assert.ok((await apply(ops)).every((r) => r.ok));
    assert.deepEqual(
      emu.writeLog.slice(before).map((w) => `${w.method} ${w.type}`),
      ['PUT pools'],
    );
    const stored = emu.state.get('pools', vtmName('pool', 'default.a'));
    assert.ok(stored?.kind === 'json');
    assert.deepEqual(
      (stored.properties['basic']?.['nodes_table'] as { node: string }[]).map((r) => r.node),
      ['10.1.0.1:8080', '10.1.0.3:8080'],
    );
  });

  test('a 90/10 canary: one PUT sets weighted_round_robin, then nothing to do; equal weights again keep it', async () => {
    const steady = [member('10.1.0.1'), member('10.1.0.3')];
    const canary = sampleState([member('10.1.0.1', 8080, { weight: 90 }), member('10.1.0.3', 8080, { weight: 10 })]);
    const ops = driver.diff(driver.render(canary), await readBack());
    assert.deepEqual(
      ops.map((o) => `${o.action} ${o.objectType}/${o.objectName}`),
      [`update pools/${vtmName('pool', 'default.a')}`],
    );
    assert.ok((await apply(ops)).every((r) => r.ok));
    const lb = (): unknown => {
      const stored = emu.state.get('pools', vtmName('pool', 'default.a'));
      return stored?.kind === 'json' ? stored.properties['load_balancing']?.['algorithm'] : undefined;
    };
    assert.equal(lb(), 'weighted_round_robin');
    assert.deepEqual(driver.diff(driver.render(canary), await readBack()), [], 'read back as written');
    assert.ok((await apply(driver.diff(driver.render(sampleState(steady)), await readBack()))).every((r) => r.ok));
    assert.deepEqual(driver.diff(driver.render(sampleState(steady)), await readBack()), []);
    assert.equal(lb(), 'weighted_round_robin', 'a PUT merges: with equal weights it balances as round robin');
  });

  test('a virtual server deleted out of band is detected by the next diff and recreated', async () => {
    const desired = driver.render(sampleState([member('10.1.0.1'), member('10.1.0.3')]));
    emu.state.delete('virtual_servers', vtmName('vs', 'default.web'));
    const ops = driver.diff(desired, await readBack());
    assert.deepEqual(
      ops.map((o) => `${o.action} ${o.objectName}`),
      [`create ${vtmName('vs', 'default.web')}`],
    );
    assert.ok((await apply(ops)).every((r) => r.ok));
    assert.deepEqual(driver.diff(desired, await readBack()), []);
  });

  test('certificate rotation rewrites the key; an unchanged key is not re-sent', async () => {
    secrets.material.set('default.tls', { certificatePem: CERT, privateKeyPem: KEY_2 });
    const rotated = driver.diff(
      driver.render(sampleState([member('10.1.0.1'), member('10.1.0.3')], 'cd'.repeat(32))),
      await readBack(),
    );
    assert.deepEqual(
      rotated.map((o) => `${o.action} ${o.objectType}`),
      ['update ssl/server_keys'],
    );
    const [result] = await apply(rotated);
    assert.ok(result?.ok && result.detail.includes('certificate and key'), JSON.stringify(result));
    const stored = emu.state.get('ssl/server_keys', vtmName('key', 'default.tls'));
    assert.ok(stored?.kind === 'json' && stored.properties['basic']?.['private'] === KEY_2);

    const sameMaterial = driver.diff(
      driver.render(sampleState([member('10.1.0.1'), member('10.1.0.3')], 'ef'.repeat(32))),
      await readBack(),
    );
    const before = emu.writeLog.length;
    const [second] = await apply(sameMaterial);
    assert.ok(second?.ok && second.detail.includes('note only'), JSON.stringify(second));
    const body = emu.writeLog[before]?.body as { properties: { basic: Record<string, string> } };
    assert.deepEqual(Object.keys(body.properties.basic), ['note'], 'key material not sent again');
  });

  test('appliance refusals are results, not exceptions; an aborted context sends nothing', async () => {
    const bad: Operation = {
      objectType: 'virtual_servers',
      objectName: 'portolan-vs-bad',
      action: 'create',
      payload: { properties: { basic: { pool: 'discard', port: 0 } } },
      summary: 'bad',
    };
    const refused = await driver.execute(bad, context());
    assert.deepEqual(refused.ok ? null : [refused.code, refused.retryable], ['resource.validation_error', false]);
    assert.ok(!refused.ok && refused.message.includes('num.out_of_range'));
    const controller = new AbortController();
    controller.abort();
    const before = emu.requestLog.length;
    const aborted = await driver.execute(
      { ...bad, payload: { properties: { basic: { pool: 'discard', port: 81 } } } },
      { epoch: 1, secrets, signal: controller.signal },
    );
    assert.deepEqual(aborted.ok ? null : aborted.code, 'aborted');
    assert.equal(emu.requestLog.length, before);
  });

  test('an empty desired state deletes everything we own, parents first, and nothing else', async () => {
    const ops = driver.diff(driver.render(desiredState()), await readBack());
    assert.equal(ops[0]?.objectType, 'virtual_servers');
    assert.ok(
      (await apply(ops)).every((r) => r.ok),
      'strict mode accepted every delete: nothing was in use',
    );
    assert.deepEqual((await readBack()).objects, []);
    for (const [type, name] of [
      ['pools', 'user-pool'],
      ['pools', 'portolan-pl-default.api'],
      ['rules', 'portolan-rt-old'],
      ['traffic_ip_groups', 'Web-TIG'],
      ['pools', 'discard'],
    ] as const) {
      assert.ok(emu.state.get(type, name) !== undefined, `${type}/${name} kept`);
    }
  });
});

describe('VtmDriver: shared-ip-address', () => {
  test('an Ingress on a shared address listens on the existing group holding it, which stays untouched', async () => {
    const emu = await startVtmEmulator({ users: { admin: 'pw' }, strict: true, machines: ['tm-a'] });
    const driver = new VtmDriver({ appliance: 'vtm', url: emu.url, username: 'admin', password: 'pw' });
    try {
      emu.state.put('traffic_ip_groups', 'Shared-TIG', {
        properties: { basic: { ipaddresses: ['192.0.2.50'], machines: ['tm-a'], note: 'made by hand' } },
      });
      const desired = driver.render(
        desiredState({
          virtualServices: [
            virtualService({ name: 'a', address: { kind: 'shared', ip: '192.0.2.50' }, defaultPool: 'default.a' }),
            virtualService({
              name: 'b',
              address: { kind: 'shared', ip: '192.0.2.51' },
              defaultPool: 'default.a',
              owners: [ingress('b')],
            }),
          ],
          pools: [pool('default.a')],
        }),
      );
      const signal = new AbortController().signal;
      for (const op of driver.diff(desired, await driver.readBack(signal))) {
        const result = await driver.execute(op, { epoch: 1, secrets: new MapSecrets(), signal });
        assert.ok(result.ok, JSON.stringify(result));
      }
      const a = emu.state.get('virtual_servers', vtmName('vs', 'a'));
      assert.ok(a?.kind === 'json');
      assert.deepEqual(a.properties['basic']?.['listen_on_traffic_ips'], ['Shared-TIG']);
      assert.equal(emu.state.get('traffic_ip_groups', vtmName('tip', '192.0.2.50')), undefined);
      assert.ok(
        emu.state.get('traffic_ip_groups', vtmName('tip', '192.0.2.51')) !== undefined,
        'no existing group: one is created',
      );
      assert.ok(!emu.writeLog.some((w) => w.name === 'Shared-TIG'));
      assert.deepEqual(driver.diff(desired, await driver.readBack(signal)), [], 'stable on the next pass');
    } finally {
      await driver.close();
      await emu.close();
    }
  });
});

describe('VtmDriver over HTTPS', () => {
  test('talks to a self-signed appliance when given its certificate, and refuses an unknown one', async () => {
    const emu = await startVtmEmulator({ users: { admin: 'pw' }, https: true });
    const trusted = new VtmDriver({
      appliance: 'vtm',
      url: emu.url,
      username: 'admin',
      password: 'pw',
      ca: emu.certificatePem ?? '',
    });
    const untrusted = new VtmDriver({ appliance: 'vtm', url: emu.url, username: 'admin', password: 'pw' });
    const wrongPassword = new VtmDriver({
      appliance: 'vtm',
      url: emu.url,
      username: 'admin',
      password: 'x',
      insecureTls: true,
    });
    try {
      assert.deepEqual((await trusted.readBack(new AbortController().signal)).objects, []);
      await assert.rejects(untrusted.readBack(new AbortController().signal), { code: 'VTM_TRANSPORT' });
      await assert.rejects(wrongPassword.readBack(new AbortController().signal), /401/);
    } finally {
      await Promise.all([trusted.close(), untrusted.close(), wrongPassword.close()]);
      await emu.close();
    }
  });
});
