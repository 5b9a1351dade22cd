import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { ExecutionContext, SecretResolver } from '@portolan/appliance-driver';
import type { ObjectRef, Route } from '@portolan/desired-state';
import { startEchoBackends, type EchoBackends, type EchoReply } from '@portolan/echo-backend';
import { startVtmEmulator, type VtmEmulator } from '@portolan/vtm-emulator';
import { desiredState, member, pool, virtualService } from './testing/desired-fixtures.ts';
import { VtmDriver } from './index.ts';

// HTTPRoute features through real traffic: the driver's rules applied to the emulator, requests sent through its
// data plane (which runs them with the TrafficScript interpreter) to echo backends that report what they received.

const SOURCE: ObjectRef = { cluster: 'c1', kind: 'HTTPRoute', namespace: 'default', name: 'web' };
const HOST = 'gw.example';
/** A header value built to break out of a TrafficScript string literal if it were not escaped. */
const HOSTILE = 'a"b\\c $host ${x} "; pool.use("portolan-pl-default.canary"); "';

function route(path: string, pool: string, over: Partial<Route> = {}): Route {
  return { host: HOST, path, match: 'Prefix', pool, source: SOURCE, ...over };
}

const ROUTES: Route[] = [
  route('/hdr', 'default.canary', { headers: [{ name: 'X-Env', type: 'Exact', value: 'canary' }] }),
  route('/hdr', 'default.stable'),
  route('/q', 'default.canary', { queryParams: [{ name: 'v', type: 'Exact', value: 'a b' }] }),
  route('/m', 'default.canary', { method: 'POST' }),
  route('/re/[0-9]+', 'default.canary', { match: 'Regex' }),
  route('/tok', 'default.canary', { headers: [{ name: 'X-Token', type: 'Exact', value: HOSTILE }] }),
  route('/edit', 'default.stable', {
    filters: {
      requestHeaders: {
        set: [{ name: 'X-Set', value: HOSTILE }],
        add: [{ name: 'X-Add', value: 'two' }],
        remove: ['X-Drop'],
      },
      responseHeaders: { set: [{ name: 'X-Resp', value: HOSTILE }], add: [], remove: ['X-From-Backend'] },
    },
  }),
  route('/old', '', {
    filters: {
      redirect: {
        scheme: 'https',
        hostname: 'new.example',
        path: { type: 'ReplacePrefixMatch', value: '/new' },
        statusCode: 301,
      },
    },
  }),
  route('/rw', 'default.stable', {
    filters: { rewrite: { hostname: 'internal.example', path: { type: 'ReplacePrefixMatch', value: '/v2' } } },
  }),
  route('/broken', '', { fixedStatus: 500 }),
  route('/', 'default.stable'),
].map((r, order) => ({ ...r, order }));

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** Sends one request with a chosen Host header (fetch cannot set it). */
function send(
  url: string,
  path: string,
  options: { method?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      { method: options.method ?? 'GET', headers: { host: HOST, ...options.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** The echo reply of a proxied request, with which backend (pod) answered. */
function echo(answer: Answer): EchoReply & { pod: string } {
  assert.equal(answer.status, 200, answer.body);
  const reply = JSON.parse(answer.body) as EchoReply;
  return { ...reply, pod: reply.context?.pod ?? '' };
}

describe('vTM driver: HTTPRoute matches and filters through the emulator data plane', () => {
  let emu: VtmEmulator;
  let backends: EchoBackends;
  let driver: VtmDriver;
  let url: string;

  before(async () => {
    const context = (pod: string) => ({ namespace: 'default', ingress: 'web', service: pod, pod });
    backends = await startEchoBackends([
      { address: '127.0.0.1', port: 0, context: context('stable') },
      { address: '127.0.0.1', port: 0, context: context('canary') },
    ]);
    const [stable, canary] = backends.backends;
    assert.ok(stable !== undefined && canary !== undefined);
    emu = await startVtmEmulator({ users: { admin: 'pw' }, dataPlane: { address: '127.0.0.1', poolAnswer: 'proxy' } });
    driver = new VtmDriver({
      appliance: 'vtm',
      url: emu.url,
      username: 'admin',
      password: 'pw',
      defaultTrafficIpGroup: 'Web-TIG',
    });
    const desired = driver.render(
      desiredState({
        virtualServices: [virtualService({ name: 'default.gw', routes: ROUTES, wildcardLabels: 'any' })],
        pools: [
          pool('default.stable', { members: [member('127.0.0.1', stable.port)] }),
          pool('default.canary', { members: [member('127.0.0.1', canary.port)] }),
        ],
      }),
    );
    assert.deepEqual(desired.conditions, []);
    const signal = new AbortController().signal;
    const secrets: SecretResolver = { resolve: () => Promise.reject(new Error('no secrets here')) };
    const ctx: ExecutionContext = { epoch: 1, snapshotId: 's-1', secrets, signal };
    const results = await driver.executeAll(driver.diff(desired, await driver.readBack(signal)), ctx);
    assert.deepEqual(
      results.filter((r) => !r.ok),
      [],
    );
    assert.ok(emu.dataPlane !== null);
    url = await emu.dataPlane.urlFor(80);
  });
  after(async () => {
    await driver.close();
    await emu.close();
    await backends.close();
  });

  test('header, query, method and regex matches pick their route; others fall through', async () => {
    const cases: { path: string; method?: string; headers?: Record<string, string>; want: string }[] = [
      { path: '/hdr', headers: { 'x-env': 'canary' }, want: 'canary' },
      { path: '/hdr', headers: { 'x-env': 'other' }, want: 'stable' },
      { path: '/q?x=1&v=a+b', want: 'canary' },
      { path: '/q?v=a%20b', want: 'canary' },
      { path: '/q?v=ab', want: 'stable' },
      { path: '/m', method: 'POST', want: 'canary' },
      { path: '/m', want: 'stable' },
      { path: '/re/42', want: 'canary' },
      { path: '/re/42x', want: 'stable' },
    ];
    for (const c of cases) assert.equal(echo(await send(url, c.path, c)).pod, c.want, JSON.stringify(c));
  });

  test('an earlier route wins: the header route is listed before the plain one for the same path', async () => {
    assert.equal(echo(await send(url, '/hdr/x', { headers: { 'x-env': 'canary' } })).pod, 'canary');
  });

  test('a hostile header value matches verbatim and nothing else does', async () => {
    assert.equal(echo(await send(url, '/tok', { headers: { 'x-token': HOSTILE } })).pod, 'canary');
    assert.equal(
      echo(await send(url, '/tok', { headers: { 'x-token': HOSTILE.replace('$host', HOST) } })).pod,
      'stable',
    );
    assert.equal(echo(await send(url, '/tok', { headers: { 'x-token': 'a"b\\c ' } })).pod, 'stable');
  });

  test('request header edits reach the backend; response header edits reach the client', async () => {
    const answer = await send(url, '/edit', {
      headers: { 'x-set': 'old', 'x-add': 'one', 'x-drop': 'gone', 'x-echo-set-header': 'X-From-Backend:1,X-Kept:1' },
    });
    const seen = echo(answer).headers ?? {};
    assert.deepEqual(seen['x-set'], [HOSTILE]);
    assert.deepEqual(seen['x-add'], ['one', 'two']);
    assert.equal(seen['x-drop'], undefined);
    assert.equal(answer.headers['x-resp'], HOSTILE);
    assert.equal(answer.headers['x-from-backend'], undefined);
    assert.equal(answer.headers['x-kept'], '1');
    const plain = await send(url, '/other', { headers: { 'x-echo-set-header': 'X-From-Backend:1' } });
    assert.equal(plain.headers['x-from-backend'], '1', "another route's response is not edited");
    assert.equal(plain.headers['x-resp'], undefined);
  });

  test('a redirect answers its status and Location (prefix replaced, query kept)', async () => {
    const answer = await send(url, '/old/page?q=1');
    assert.equal(answer.status, 301);
    assert.equal(answer.headers['location'], 'https://new.example/new/page?q=1');
  });

  test('a rewrite changes the Host header and the path the backend sees', async () => {
    const reply = echo(await send(url, '/rw/items?id=7'));
    assert.equal(reply.host, 'internal.example');
    assert.equal(reply.path, '/v2/items?id=7');
  });

  test('a fixed status is answered without a backend', async () => {
    const answer = await send(url, '/broken');
    assert.equal(answer.status, 500);
    assert.equal(answer.body, '', 'answered by the route, not by a failing rule');
    assert.equal(emu.dataPlane?.requestLog.at(-1)?.pool, null);
  });
});
