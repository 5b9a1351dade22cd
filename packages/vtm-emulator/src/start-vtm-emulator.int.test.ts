import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { request } from 'node:https';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startVtmEmulator, type VtmEmulator } from './index.ts';

const AUTH = `Basic ${Buffer.from('admin:secret').toString('base64')}`;
const CFG = '/api/tm/8.3/config/active';

interface Reply {
  status: number;
  contentType: string | null;
  text: string;
  json: () => any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function call(
  emu: VtmEmulator,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const isText = typeof body === 'string';
  const res = await fetch(`${emu.url}${path}`, {
    method,
    headers: {
      authorization: AUTH,
      ...(body === undefined ? {} : { 'content-type': isText ? 'application/octet-stream' : 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: isText ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get('content-type'), text, json: () => JSON.parse(text) };
}

describe('vTM emulator over HTTP', () => {
  let emu: VtmEmulator;
  before(async () => {
    emu = await startVtmEmulator({ users: { admin: 'secret' }, machines: ['tm-a', 'tm-b'], versions: ['7.0', '8.3'] });
  });
  after(async () => emu.close());

  test('Basic auth: missing or wrong credentials get 401 auth.invalid', async () => {
    for (const headers of [
      { authorization: '' },
      { authorization: `Basic ${Buffer.from('admin:nope').toString('base64')}` },
    ]) {
      const r = await call(emu, 'GET', '/api/tm', undefined, headers);
      assert.equal(r.status, 401);
      assert.deepEqual(r.json(), { error_id: 'auth.invalid', error_text: 'User name or password was invalid' });
    }
    assert.equal((await call(emu, 'GET', '/api/tm')).status, 200);
  });

  test('GET /api/tm lists the versions; each version lists config and status', async () => {
    assert.deepEqual((await call(emu, 'GET', '/api/tm')).json(), {
      children: [
        { name: '7.0', href: '/api/tm/7.0/' },
        { name: '8.3', href: '/api/tm/8.3/' },
      ],
    });
    assert.deepEqual(
      (await call(emu, 'GET', '/api/tm/8.3')).json().children.map((c: { name: string }) => c.name),
      ['config', 'status'],
    );
    assert.equal((await call(emu, 'GET', '/api/tm/9.9')).status, 404);
  });

  test('PUT creates with 201 and every default, updates with 200, merges partial bodies and replaces tables', async () => {
    const created = await call(emu, 'PUT', `${CFG}/pools/web`, {
      properties: { basic: { nodes_table: [{ node: '10.0.0.1:80', weight: 5 }, { node: '10.0.0.2:80' }] } },
    });
    assert.equal(created.status, 201);
    const pool = created.json().properties;
    assert.deepEqual(pool.basic.nodes_table, [
      { node: '10.0.0.1:80', priority: 1, source_ip: '', state: 'active', weight: 5 },
      { node: '10.0.0.2:80', priority: 1, source_ip: '', state: 'active', weight: 1 },
    ]);
    assert.equal(pool.load_balancing.algorithm, 'round_robin');
    assert.equal(pool.basic.passive_monitoring, true);

    const updated = await call(emu, 'PUT', `${CFG}/pools/web`, {
      properties: {
        basic: { note: 'n', nodes_table: [{ node: '10.0.0.3:80' }] },
        load_balancing: { algorithm: 'least_connections' },
      },
    });
    assert.equal(updated.status, 200);
    const partial = await call(emu, 'PUT', `${CFG}/pools/web`, {
      properties: { basic: { passive_monitoring: false } },
    });
    assert.equal(partial.status, 200);
    const after = (await call(emu, 'GET', `${CFG}/pools/web`)).json().properties;
    assert.deepEqual(
      after.basic.nodes_table.map((r: { node: string }) => r.node),
      ['10.0.0.3:80'],
      'table replaced, not merged',
    );
    assert.equal(after.basic.note, 'n', 'keys absent from a later body are kept');
    assert.equal(after.basic.passive_monitoring, false);
    assert.equal(after.load_balancing.algorithm, 'least_connections', 'other sections are kept');
  });

  test('a new virtual server needs pool and port, and takes its documented defaults', async () => {
    const missing = await call(emu, 'PUT', `${CFG}/virtual_servers/vs0`, { properties: { basic: { port: 80 } } });
    assert.equal(missing.status, 400);
    assert.equal(missing.json().error_info.basic.pool.error_id, 'json.missing_property');
    const r = await call(emu, 'PUT', `${CFG}/virtual_servers/vs0`, {
      properties: { basic: { port: 8080, pool: 'discard' } },
    });
    assert.equal(r.status, 201);
    const basic = r.json().properties.basic;
    assert.deepEqual(
      [basic.enabled, basic.listen_on_any, basic.protocol, basic.ssl_decrypt],
      [false, true, 'http', false],
    );
    assert.equal(r.json().properties.connection.timeout, 300);
  });

  test('lists a type with names and hrefs', async () => {
    await call(emu, 'PUT', `${CFG}/persistence/p 1`, { properties: { basic: { type: 'cookie', cookie: 'c' } } });
    const list = (await call(emu, 'GET', `${CFG}/persistence`)).json();
    assert.deepEqual(list.children, [{ name: 'p 1', href: `${CFG}/persistence/p%201` }]);
  });

  test('rules are raw text: 201 on create, 204 on update, read back verbatim', async () => {
    const script = '# note\npool.use("web");\n';
    const created = await call(emu, 'PUT', `${CFG}/rules/r1`, script);
    assert.equal(created.status, 201);
    assert.equal((await call(emu, 'PUT', `${CFG}/rules/r1`, `${script}# v2\n`)).status, 204);
    const read = await call(emu, 'GET', `${CFG}/rules/r1`);
    assert.equal(read.text, `${script}# v2\n`);
    assert.equal(read.contentType, 'application/octet-stream');
  });

  test('missing objects answer 404 resource.not_found naming the path; DELETE answers 204', async () => {
    const r = await call(emu, 'GET', `${CFG}/pools/nope`);
    assert.equal(r.status, 404);
    assert.deepEqual(r.json(), {
      error_id: 'resource.not_found',
      error_text: `Resource '${CFG}/pools/nope' does not exist`,
    });
    assert.equal((await call(emu, 'DELETE', `${CFG}/pools/nope`)).status, 404);
    await call(emu, 'PUT', `${CFG}/monitors/m1`, { properties: { basic: { type: 'connect' } } });
    assert.equal((await call(emu, 'DELETE', `${CFG}/monitors/m1`)).status, 204);
    assert.equal((await call(emu, 'GET', `${CFG}/monitors/m1`)).status, 404);
  });

  test('validation errors are 400 resource.validation_error with nested error_info', async () => {
    const r = await call(emu, 'PUT', `${CFG}/virtual_servers/bad`, {
      properties: { basic: { pool: 'discard', port: 70000, protocol: 'wizard_magic', bogus: 1 }, nonsense: {} },
    });
    assert.equal(r.status, 400);
    const body = r.json();
    assert.equal(body.error_id, 'resource.validation_error');
    assert.equal(body.error_text, 'The resource provided is invalid');
    assert.deepEqual(body.error_info.basic.port, {
      error_id: 'num.out_of_range',
      error_text: "Value '70000' must be within 1-65535",
    });
    assert.equal(body.error_info.basic.protocol.error_id, 'enum.invalid_value');
    assert.deepEqual(body.error_info.basic.bogus, {
      error_id: 'json.unknown_property',
      error_text: 'Property is unknown',
    });
    assert.equal(body.error_info.nonsense.error_id, 'json.unknown_property');
    assert.equal((await call(emu, 'GET', `${CFG}/virtual_servers/bad`)).status, 404, 'nothing stored');
  });

  test('table row errors are keyed by the row primary key; malformed tables are json.invalid_table', async () => {
    const r = await call(emu, 'PUT', `${CFG}/pools/rows`, {
      properties: {
        basic: {
          nodes_table: [
            { node: '10.0.0.1:80', weight: -1 },
            { node: '10.0.0.2:80', colour: 'red' },
          ],
        },
      },
    });
    assert.equal(r.status, 400);
    const info = r.json().error_info.basic.nodes_table;
    assert.deepEqual(info['10.0.0.1:80'].weight, {
      error_id: 'num.out_of_range',
      error_text: "Value '-1' must be within 1-100",
    });
    assert.equal(info['10.0.0.2:80'].colour.error_id, 'json.unknown_property');
    const bad = await call(emu, 'PUT', `${CFG}/pools/rows`, {
      properties: { basic: { nodes_table: [{ weight: 2 }] } },
    });
    assert.equal(bad.json().error_info.basic.nodes_table.error_id, 'json.invalid_table');
  });

  test('an SSL server key reads back with the private key as its base64 SHA-256', async () => {
    const privateKey = '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n';
    const want = createHash('sha256').update(privateKey).digest('base64');
    const put = await call(emu, 'PUT', `${CFG}/ssl/server_keys/k1`, {
      properties: { basic: { public: 'CERT', private: privateKey } },
    });
    assert.equal(put.status, 201);
    assert.equal(put.json().properties.basic.private, want);
    const got = (await call(emu, 'GET', `${CFG}/ssl/server_keys/k1`)).json().properties.basic;
    assert.deepEqual([got.public, got.private], ['CERT', want]);
    assert.ok(!put.text.includes('AAAA'));
    const logged = emu.writeLog.find((w) => w.type === 'ssl/server_keys');
    assert.ok(logged !== undefined && !JSON.stringify(logged.body).includes('AAAA'), 'write log redacts the key');
  });

  test('built-in discard pool and factory monitors exist and cannot be deleted', async () => {
    assert.ok(
      (await call(emu, 'GET', `${CFG}/pools`)).json().children.some((c: { name: string }) => c.name === 'discard'),
    );
    const monitors = (await call(emu, 'GET', `${CFG}/monitors`)).json().children.map((c: { name: string }) => c.name);
    for (const m of ['Connect', 'Ping', 'Simple HTTP']) assert.ok(monitors.includes(m), m);
    assert.equal((await call(emu, 'GET', `${CFG}/monitors/Connect`)).json().properties.basic.factory, true);
    assert.equal((await call(emu, 'DELETE', `${CFG}/pools/discard`)).status, 403);
  });

  test('traffic IP groups may only name machines of the cluster', async () => {
    const bad = await call(emu, 'PUT', `${CFG}/traffic_ip_groups/t1`, {
      properties: { basic: { ipaddresses: ['192.0.2.1'], machines: ['tm-x'] } },
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.json().error_info.basic.machines.error_id, 'reference.not_found');
    const ok = await call(emu, 'PUT', `${CFG}/traffic_ip_groups/t1`, {
      properties: { basic: { ipaddresses: ['192.0.2.1'], machines: ['tm-a'] } },
    });
    assert.equal(ok.status, 201);
    assert.deepEqual(
      (await call(emu, 'GET', `${CFG}/traffic_managers`)).json().children.map((c: { name: string }) => c.name),
      ['tm-a', 'tm-b'],
    );
  });

  test('without strict mode dangling references are accepted (as on a real appliance)', async () => {
    const r = await call(emu, 'PUT', `${CFG}/virtual_servers/loose`, {
      properties: { basic: { pool: 'ghost', port: 81, request_rules: ['r9', 'r9'] } },
    });
    assert.equal(r.status, 201);
  });

  test('the write log records successful writes in order', () => {
    const before = emu.writeLog.length;
    assert.ok(before > 0);
    const seqs = emu.writeLog.map((w) => w.seq);
    assert.deepEqual(
      seqs,
      seqs.map((_, i) => i + 1),
    );
    assert.ok(emu.writeLog.every((w) => w.status < 300));
    assert.deepEqual(
      emu.writeLog.filter((w) => w.type === 'rules').map((w) => [w.method, w.status]),
      [
        ['PUT', 201],
        ['PUT', 204],
      ],
    );
  });
});

describe('vTM emulator options', () => {
  test('strict mode refuses dangling references and deleting objects in use', async () => {
    const emu = await startVtmEmulator({ users: { admin: 'secret' }, strict: true });
    try {
      const dangling = await call(emu, 'PUT', `${CFG}/virtual_servers/vs`, {
        properties: { basic: { pool: 'web', port: 80 } },
      });
      assert.equal(dangling.status, 400);
      assert.equal(dangling.json().error_info.basic.pool.error_id, 'reference.not_found');
      assert.equal((await call(emu, 'PUT', `${CFG}/pools/web`, { properties: { basic: {} } })).status, 201);
      assert.equal(
        (await call(emu, 'PUT', `${CFG}/virtual_servers/vs`, { properties: { basic: { pool: 'web', port: 80 } } }))
          .status,
        201,
      );
      const inUse = await call(emu, 'DELETE', `${CFG}/pools/web`);
      assert.equal(inUse.status, 409);
      assert.equal(inUse.json().error_id, 'resource.in_use');
      assert.equal((await call(emu, 'DELETE', `${CFG}/virtual_servers/vs`)).status, 204);
      assert.equal((await call(emu, 'DELETE', `${CFG}/pools/web`)).status, 204);
    } finally {
      await emu.close();
    }
  });

  test('a state file keeps the configuration across restarts', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vtm-emu-state-'));
    const statePath = join(dir, 'state.json');
    try {
      const first = await startVtmEmulator({ users: { admin: 'secret' }, statePath });
      await call(first, 'PUT', `${CFG}/pools/kept`, { properties: { basic: { note: 'survives' } } });
      await call(first, 'PUT', `${CFG}/rules/kept`, 'pool.use("kept");');
      await first.close();
      const second = await startVtmEmulator({ users: { admin: 'secret' }, statePath });
      try {
        assert.equal((await call(second, 'GET', `${CFG}/pools/kept`)).json().properties.basic.note, 'survives');
        assert.equal((await call(second, 'GET', `${CFG}/rules/kept`)).text, 'pool.use("kept");');
      } finally {
        await second.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('HTTPS with a self-signed certificate', async () => {
    const emu = await startVtmEmulator({ users: { admin: 'secret' }, https: true });
    try {
      assert.match(emu.url, /^https:\/\/127\.0\.0\.1:\d+$/);
      const ca = emu.certificatePem ?? '';
      const body = await new Promise<string>((resolve, reject) => {
        const req = request(`${emu.url}/api/tm`, { ca, headers: { authorization: AUTH } }, (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve(text));
        });
        req.on('error', reject);
        req.end();
      });
      assert.deepEqual(JSON.parse(body), { children: [{ name: '8.3', href: '/api/tm/8.3/' }] });
    } finally {
      await emu.close();
    }
  });

  test('state access simulates out-of-band changes visible over REST', async () => {
    const emu = await startVtmEmulator({ users: { admin: 'secret' } });
    try {
      emu.state.put('pools', 'oob', { properties: { basic: { note: 'by hand' } } });
      assert.equal((await call(emu, 'GET', `${CFG}/pools/oob`)).json().properties.basic.note, 'by hand');
      emu.state.delete('pools', 'oob');
      assert.equal((await call(emu, 'GET', `${CFG}/pools/oob`)).status, 404);
      assert.equal(emu.writeLog.length, 0, 'out-of-band changes are not REST writes');
    } finally {
      await emu.close();
    }
  });

  test('the audit log holds every write with the epoch and snapshot headers it carried, and no body', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vtm-audit-'));
    const auditLogPath = join(dir, 'audit.log');
    const emu = await startVtmEmulator({ users: { admin: 'secret' }, auditLogPath });
    try {
      const stamp = { 'x-portolan-epoch': '7', 'x-portolan-snapshot': '42' };
      await call(emu, 'PUT', `${CFG}/pools/web`, { properties: { basic: { note: 'n' } } }, stamp);
      await call(emu, 'PUT', `${CFG}/pools/bare`, { properties: {} });
      await call(emu, 'GET', `${CFG}/pools/web`, undefined, stamp);
      await call(emu, 'DELETE', `${CFG}/pools/web`, undefined, { 'x-portolan-epoch': '8' });
      const lines = (await readFile(auditLogPath, 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.deepEqual(
        lines.map((l) => [l.seq, l.method, l.name, l.status, l.epoch, l.snapshot]),
        [
          [1, 'PUT', 'web', 201, 7, '42'],
          [2, 'PUT', 'bare', 201, null, null],
          [3, 'DELETE', 'web', 204, 8, null],
        ],
      );
      assert.ok(lines.every((l) => !('body' in l) && !Number.isNaN(Date.parse(l.at))));
      assert.deepEqual(
        emu.writeLog[0]?.body,
        { properties: { basic: { note: 'n' } } },
        'the in-memory log keeps bodies',
      );
    } finally {
      await emu.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
