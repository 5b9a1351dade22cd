// The console's API on a real Postgres and a Kubernetes API (the simulator with a static token file) that reviews
// tokens: fleet-config tokens and Kubernetes users map to roles, a user in no mapped group and an unreachable
// reviewer grant nothing, every write records the identity, malformed requests are 400s that name the parameter,
// and the event stream carries an operator action.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createParser } from 'eventsource-parser';
import { hashToken, newToken } from '@portolan/access';
import { parseFleetConfig } from '@portolan/fleet-config';
import { testStack } from '@portolan/infra';
import { startKubeSim, type KubeSim } from '@portolan/kube-sim';
import { createTestDatabase, sql, type TestDatabase } from '@portolan/store';
import { createLogger } from '@portolan/telemetry';
import { startConsole, type RunningConsole } from './start-console.ts';

let dir: string;
let sim: KubeSim;
let tdb: TestDatabase;
let running: RunningConsole;
const fleetToken = newToken();
let fleetText: string;
const sink = new Writable({ write: (_c, _e, done) => done() });

before(async () => {
  const stack = await testStack();
  dir = mkdtempSync(path.join(tmpdir(), 'ptl-console-'));
  writeFileSync(
    path.join(dir, 'tokens.csv'),
    'k8s-jane,jane,u1,"portolan-operators,dev"\nk8s-bob,bob,u2,"portolan-viewers"\nk8s-eve,eve,u3,"dev"\nk8s-late,late,u4,"portolan-viewers"\n',
  );
  sim = await startKubeSim({ tokenAuthFile: path.join(dir, 'tokens.csv') });
  await sim.writeKubeconfig(path.join(dir, 'kubeconfig'));
  tdb = await createTestDatabase(stack.postgresUrl);
  writeFileSync(path.join(dir, 'fleet.key'), randomBytes(32).toString('hex'));
  const text = `version: 1
clusters: [{ name: c1, kubeconfig: kubeconfig }]
appliances:
  - { name: edge, driver: haproxy, haproxy: { configDir: haproxy, masterSocket: haproxy/master.sock } }
bus: { url: "${stack.natsUrl}", stream: CONSOLE_${randomBytes(3).toString('hex')} }
store: { url: "${tdb.url}" }
leases: { redisUrl: "${stack.redisUrl}" }
secrets: { keyFile: fleet.key }
console:
  tokens: [{ name: ci-bot, role: viewer, sha256: ${hashToken(fleetToken)} }]
  tokenReview: { cluster: c1, operatorGroups: [portolan-operators], viewerGroups: [portolan-viewers] }
`;
  fleetText = text;
  const fleet = parseFleetConfig(text, 'fleet.yaml', dir);
  running = await startConsole({
    fleet,
    log: createLogger('console', { destination: sink }),
    listen: '127.0.0.1:0',
    pollMs: 100,
  });
});
after(async () => {
  await running?.close();
  await sim?.close();
  await tdb?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** An answer's body: an error, or a report (fields read as the test needs them). */
type Reply = { error: { code: string; message: string }; actor?: string } & Record<string, unknown>;

async function call(token: string | null, urlPath: string, body?: unknown): Promise<{ status: number; json: Reply }> {
  const r = await fetch(`${running.url}${urlPath}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: r.status, json: (await r.json().catch(() => null)) as Reply };
}

test('fleet-config tokens and Kubernetes users (TokenReview) map to roles; anyone else gets nothing', async () => {
  assert.deepEqual((await call(fleetToken, '/api/v1/session')).json, { name: 'ci-bot', role: 'viewer', via: 'token' });
  assert.deepEqual((await call('k8s-jane', '/api/v1/session')).json, {
    name: 'jane',
    role: 'operator',
    via: 'kubernetes',
  });
  assert.deepEqual((await call('k8s-bob', '/api/v1/session')).json, { name: 'bob', role: 'viewer', via: 'kubernetes' });
  for (const token of ['k8s-eve', 'k8s-nobody', null]) {
    const r = await call(token, '/api/v1/session');
    assert.equal(r.status, 401, `${token ?? 'no token'}`);
    assert.equal(r.json.error.code, 'Unauthenticated');
  }
});

test('writes: a Kubernetes viewer is refused; a Kubernetes operator is recorded by name; the stream carries it', async () => {
  const refused = await call('k8s-bob', '/api/v1/appliances/edge/resume', { reason: 'try' });
  assert.equal(refused.status, 403);
  const events: { event: string; data: string }[] = [];
  const abort = new AbortController();
  const stream = await fetch(`${running.url}/api/v1/events`, {
    headers: { authorization: 'Bearer k8s-bob' },
    signal: abort.signal,
  });
  const parser = createParser({ onEvent: (e) => events.push({ event: e.event ?? '', data: e.data }) });
  const reading = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of stream.body!) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
  })().catch(() => {});
  try {
    const ok = await call('k8s-jane', '/api/v1/appliances/edge/resume', { reason: 'after the change window' });
    assert.equal(ok.status, 200, JSON.stringify(ok.json));
    assert.equal(ok.json.actor, 'jane (kubernetes)');
    const { rows } = await sql<{ actor: string; reason: string }>`SELECT actor, reason FROM operator_actions`.execute(
      tdb.db,
    );
    assert.deepEqual(rows, [{ actor: 'jane (kubernetes)', reason: 'after the change window' }]);
    const deadline = Date.now() + 10_000;
    while (!events.some((e) => e.event === 'action') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    assert.equal(events[0]?.event, 'ready');
    const action = events.find((e) => e.event === 'action');
    assert.ok(action, `events: ${JSON.stringify(events)}`);
    assert.deepEqual(
      { ...JSON.parse(action.data), at: undefined, id: undefined },
      {
        appliance: 'edge',
        action: 'resume',
        actor: 'jane (kubernetes)',
        reason: 'after the change window',
        at: undefined,
        id: undefined,
      },
    );
  } finally {
    abort.abort();
    await reading;
  }
});

test('malformed or unknown input is a 400 or 404 that names it; nothing is written', async () => {
  const cases: [string, unknown, number, RegExp][] = [
    ['/api/v1/appliances/edge/history?since=yesterday-ish', undefined, 400, /since/],
    ['/api/v1/appliances/nowhere/history', undefined, 404, /nowhere/],
    ['/api/v1/snapshots/999999', undefined, 404, /999999/],
    ['/api/v1/diff?from=1', undefined, 400, /to/],
    ['/api/v1/appliances/edge/rollback', { to: '1' }, 400, /reason/],
    ['/api/v1/appliances/edge/rollback', { to: 'latest', reason: 'x' }, 400, /to/],
    ['/api/v1/appliances/edge/rollback', { to: '999999', reason: 'x' }, 404, /999999/],
    ['/api/v1/appliances/edge/resume', { reason: 'x'.repeat(1001) }, 400, /reason/],
  ];
  for (const [urlPath, body, status, names] of cases) {
    const r = await call('k8s-jane', urlPath, body);
    assert.equal(r.status, status, `${urlPath} ${JSON.stringify(body)}: ${JSON.stringify(r.json)}`);
    assert.match(r.json.error.message, names, `${urlPath}: the message names what is wrong`);
  }
  const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM operator_actions`.execute(tdb.db);
  assert.equal(Number(rows[0]!.n), 1, 'only the earlier resume is recorded');
});

test('with console.tls it serves HTTPS with that certificate, and still no anonymous access', async () => {
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
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      path.join(dir, 'console.key'),
      '-out',
      path.join(dir, 'console.crt'),
    ],
    { stdio: 'ignore' },
  );
  const { config } = parseFleetConfig(fleetText, 'fleet.yaml', dir);
  const secured = {
    config: {
      ...config,
      console: {
        ...config.console!,
        tls: { certFile: path.join(dir, 'console.crt'), keyFile: path.join(dir, 'console.key') },
      },
    },
    hash: 'tls',
    baseDir: dir,
  };
  const tls = await startConsole({
    fleet: secured,
    log: createLogger('console', { destination: sink }),
    listen: '127.0.0.1:0',
  });
  try {
    assert.match(tls.url, /^https:/);
    const ca = readFileSync(path.join(dir, 'console.crt'));
    const get = (token: string | null): Promise<number> =>
      new Promise((resolve, reject) =>
        https
          .get(
            `${tls.url}/api/v1/session`,
            { ca, headers: token === null ? {} : { authorization: `Bearer ${token}` } },
            (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            },
          )
          .on('error', reject),
      );
    assert.equal(await get(fleetToken), 200);
    assert.equal(await get(null), 401);
  } finally {
    await tls.close();
  }
});

test('an unreachable reviewer grants nothing (503); fleet-config tokens still work', async () => {
  await sim.close();
  const r = await call('k8s-late', '/api/v1/session');
  assert.equal(r.status, 503);
  assert.equal(r.json.error.code, 'TokenReviewUnavailable');
  assert.equal((await call(fleetToken, '/api/v1/appliances')).status, 200);
});
