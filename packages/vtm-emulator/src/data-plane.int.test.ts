import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { DataPlaneListenError, startVtmEmulator, type DataPlane, type VtmEmulator } from './index.ts';

const AUTH = `Basic ${Buffer.from('admin:pw').toString('base64')}`;
const CFG = '/api/tm/8.3/config/active';

async function put(emu: VtmEmulator, path: string, body: unknown): Promise<number> {
  const isText = typeof body === 'string';
  const res = await fetch(`${emu.url}${CFG}/${path}`, {
    method: 'PUT',
    headers: { authorization: AUTH, 'content-type': isText ? 'application/octet-stream' : 'application/json' },
    body: isText ? body : JSON.stringify(body),
  });
  await res.text();
  return res.status;
}

async function del(emu: VtmEmulator, path: string): Promise<number> {
  const res = await fetch(`${emu.url}${CFG}/${path}`, { method: 'DELETE', headers: { authorization: AUTH } });
  await res.text();
  return res.status;
}

/** GET with a chosen Host header (fetch does not allow setting it). */
function getWithHost(
  url: string,
  host: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

function dataPlaneOf(emu: VtmEmulator): DataPlane {
  assert.ok(emu.dataPlane !== null, 'started with a data plane');
  return emu.dataPlane;
}

const SEND_RULE = [
  '# answers one path itself',
  'if (http.getPath() == "/hello") {',
  '  http.sendResponse("201 Created", "text/plain", "hello " . http.getHostHeader(), "X-Rule: send\\r\\nCache-Control: no-store");',
  '}',
].join('\n');
const REDIRECT_RULE = 'if (http.getPath() == "/old") { http.redirect("http://example.com/new"); }\n';
const ROUTE_RULE = 'if (string.startsWith(http.getPath(), "/api")) { pool.use("api"); }\n';

describe('vTM emulator data plane: request rules and pools reach the HTTP client', () => {
  let emu: VtmEmulator;
  before(async () => {
    emu = await startVtmEmulator({ users: { admin: 'pw' }, dataPlane: { address: '127.0.0.1' } });
    assert.equal(await put(emu, 'rules/send', SEND_RULE), 201);
    assert.equal(await put(emu, 'rules/redirect', REDIRECT_RULE), 201);
    assert.equal(await put(emu, 'rules/route', ROUTE_RULE), 201);
    assert.equal(
      await put(emu, 'pools/web', {
        properties: {
          basic: {
            nodes_table: [
              { node: '10.9.0.1:8080' },
              { node: '10.9.0.2:8080' },
              { node: '10.9.0.3:8080', state: 'draining' },
            ],
          },
        },
      }),
      201,
    );
    assert.equal(
      await put(emu, 'pools/api', { properties: { basic: { nodes_table: [{ node: '10.9.1.1:9000' }] } } }),
      201,
    );
    assert.equal(
      await put(emu, 'virtual_servers/site', {
        properties: { basic: { enabled: true, port: 80, pool: 'web', request_rules: ['send', 'redirect', 'route'] } },
      }),
      201,
    );
  });
  after(async () => emu.close());

  test('http.sendResponse: status, content type, body and extra headers', async () => {
    const res = await getWithHost(`${await dataPlaneOf(emu).urlFor(80)}/hello`, 'shop.example.com');
    assert.equal(res.status, 201);
    assert.equal(res.headers['content-type'], 'text/plain');
    assert.equal(res.headers['x-rule'], 'send');
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.equal(res.body, 'hello shop.example.com');
  });

  test('http.redirect answers 302 with the location', async () => {
    const res = await fetch(`${await dataPlaneOf(emu).urlFor(80)}/old`, { redirect: 'manual' });
    assert.equal(res.status, 302);
    assert.equal(res.headers.get('location'), 'http://example.com/new');
    await res.text();
  });

  test('pool.use in a rule picks that pool; unmatched requests use the default pool, round robin over active nodes', async () => {
    const url = await dataPlaneOf(emu).urlFor(80);
    assert.deepEqual(await (await fetch(`${url}/api/v1`)).json(), {
      virtualServer: 'site',
      pool: 'api',
      node: '10.9.1.1:9000',
    });
    const nodes = new Set<string>();
    for (let i = 0; i < 4; i += 1) {
      const body = (await (await fetch(`${url}/page`)).json()) as { pool: string; node: string };
      assert.equal(body.pool, 'web');
      nodes.add(body.node);
    }
    assert.deepEqual([...nodes].sort(), ['10.9.0.1:8080', '10.9.0.2:8080'], 'the draining node gets no new requests');
    const logged = dataPlaneOf(emu).requestLog.filter((e) => e.url === '/api/v1');
    assert.deepEqual(
      logged.map((e) => [e.virtualServerPort, e.status, e.pool]),
      [[80, 200, 'api']],
    );
  });

  test('listeners follow the configuration: enabling, disabling and deleting virtual servers over REST', async () => {
    const plane = dataPlaneOf(emu);
    assert.equal(
      await put(emu, 'virtual_servers/other', {
        properties: { basic: { enabled: false, port: 8081, pool: 'discard' } },
      }),
      201,
    );
    await assert.rejects(plane.urlFor(8081), DataPlaneListenError);
    assert.equal(await put(emu, 'virtual_servers/other', { properties: { basic: { enabled: true } } }), 200);
    const url = await plane.urlFor(8081);
    // The discard pool drops the connection without an answer.
    await assert.rejects(fetch(`${url}/`));
    assert.deepEqual(
      (await plane.listeners()).map((l) => l.virtualServerPort),
      [80, 8081],
    );
    assert.equal(await del(emu, 'virtual_servers/other'), 204);
    assert.deepEqual(
      (await plane.listeners()).map((l) => l.virtualServerPort),
      [80],
    );
    await assert.rejects(fetch(`${url}/`), 'the closed listener refuses connections');
  });

  test('a rule the interpreter cannot run answers 500 instead of crashing the listener', async () => {
    assert.equal(await put(emu, 'rules/broken', 'net.dns.resolve("x");\n'), 201);
    assert.equal(
      await put(emu, 'virtual_servers/broken', {
        properties: { basic: { enabled: true, port: 8082, pool: 'web', request_rules: ['broken'] } },
      }),
      201,
    );
    const res = await fetch(`${await dataPlaneOf(emu).urlFor(8082)}/`);
    assert.equal(res.status, 500);
    assert.match(await res.text(), /unknown function net\.dns\.resolve/);
    assert.equal(
      (await fetch(`${await dataPlaneOf(emu).urlFor(80)}/hello`)).status,
      201,
      'other listeners keep working',
    );
  });
});

describe('vTM emulator data plane in proxy mode', () => {
  let emu: VtmEmulator;
  let backend: Server;
  before(async () => {
    backend = createServer((req, res) =>
      res
        .writeHead(200, { 'content-type': 'text/plain', 'x-backend': 'yes' })
        .end(`backend saw ${req.method} ${req.url} x-user=${JSON.stringify(req.headers['x-user'] ?? null)}`),
    );
    await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
    const port = (backend.address() as AddressInfo).port;
    emu = await startVtmEmulator({ users: { admin: 'pw' }, dataPlane: { address: '127.0.0.1', poolAnswer: 'proxy' } });
    emu.state.put('pools', 'echo', { properties: { basic: { nodes_table: [{ node: `127.0.0.1:${port}` }] } } });
    emu.state.put('pools', 'dead', { properties: { basic: { nodes_table: [{ node: '127.0.0.1:1' }] } } });
    emu.state.put('rules', 'to-dead', 'if (http.getPath() == "/dead") { pool.use("dead"); }\n');
    emu.state.put(
      'rules',
      'edit',
      'if (http.getPath() == "/edit") { http.setPath("/edited"); http.setHeader("X-User", "bob"); connection.data.set("r", "1"); }\n',
    );
    emu.state.put(
      'rules',
      'respond',
      'if (connection.data.get("r") == "1") { http.removeResponseHeader("X-Backend"); http.addResponseHeader("X-Vtm", "seen"); }\n',
    );
    emu.state.put('virtual_servers', 'site', {
      properties: {
        basic: {
          enabled: true,
          port: 80,
          pool: 'echo',
          request_rules: ['to-dead', 'edit'],
          response_rules: ['respond'],
        },
      },
    });
  });
  after(async () => {
    await emu.close();
    await new Promise<void>((resolve) => backend.close(() => resolve()));
  });

  test('a request routed to a pool is forwarded to the node and its answer relayed', async () => {
    const res = await fetch(`${await dataPlaneOf(emu).urlFor(80)}/x?y=1`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-backend'), 'yes');
    assert.equal(await res.text(), 'backend saw GET /x?y=1 x-user=null');
  });

  test('request rule edits reach the node; response rules edit what the client gets', async () => {
    const res = await fetch(`${await dataPlaneOf(emu).urlFor(80)}/edit?q=1`, { headers: { 'x-user': 'ann' } });
    assert.equal(await res.text(), 'backend saw GET /edited?q=1 x-user="bob"');
    assert.equal(res.headers.get('x-backend'), null, 'removed by the response rule');
    assert.equal(res.headers.get('x-vtm'), 'seen');
  });

  test('an unreachable node gives 502', async () => {
    const res = await fetch(`${await dataPlaneOf(emu).urlFor(80)}/dead`);
    assert.equal(res.status, 502);
    await res.text();
  });
});

describe('vTM emulator data plane: load balancing algorithms', () => {
  let emu: VtmEmulator;
  const weighted = [
    { node: '10.9.2.1:80', weight: 90 },
    { node: '10.9.2.2:80', weight: 10 },
  ];
  before(async () => {
    emu = await startVtmEmulator({ users: { admin: 'pw' }, dataPlane: { address: '127.0.0.1' } });
    const pool = (algorithm: string): unknown => ({
      properties: { basic: { nodes_table: weighted }, load_balancing: { algorithm } },
    });
    assert.equal(await put(emu, 'pools/canary', pool('weighted_round_robin')), 201);
    assert.equal(await put(emu, 'pools/even', pool('round_robin')), 201);
    for (const [name, port] of [
      ['canary', 80],
      ['even', 81],
    ] as const)
      assert.equal(
        await put(emu, `virtual_servers/${name}`, { properties: { basic: { enabled: true, port, pool: name } } }),
        201,
      );
  });
  after(async () => emu.close());

  const spread = async (port: number, requests: number): Promise<Record<string, number>> => {
    const url = await dataPlaneOf(emu).urlFor(port);
    const counts: Record<string, number> = {};
    for (let i = 0; i < requests; i += 1) {
      const { node } = (await (await fetch(`${url}/`)).json()) as { node: string };
      counts[node] = (counts[node] ?? 0) + 1;
    }
    return counts;
  };

  test('weighted_round_robin: a 90/10 weighting sends exactly 90 and 10 of 100 requests', async () => {
    assert.deepEqual(await spread(80, 100), { '10.9.2.1:80': 90, '10.9.2.2:80': 10 });
  });

  test('round_robin ignores the weights: the same nodes get 50 and 50', async () => {
    assert.deepEqual(await spread(81, 100), { '10.9.2.1:80': 50, '10.9.2.2:80': 50 });
  });
});
