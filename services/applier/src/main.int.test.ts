import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startEchoBackends, type EchoBackends } from '@portolan/echo-backend';
import { startHaproxy, type RunningHaproxy } from '@portolan/haproxy-driver';
import { testStack } from '@portolan/infra';
import { startKubeSim, type KubeSim } from '@portolan/kube-sim';
import { PgEpochStore, RedisLeaseClient, groupStatuses } from '@portolan/leadership';
import { createTestDatabase, type TestDatabase } from '@portolan/store';
import { writeSnapshot } from './testing/snapshot-writer.ts';
import { desiredState, httpService, pool } from './testing/desired-fixtures.ts';
import { freePort, startPrivateNats, type PrivateNats } from './testing/private-nats.ts';
import { APPLIER_TUNING } from './runtime-tuning.ts';

const main = path.join(import.meta.dirname, 'main.ts');
let database: TestDatabase;
let redisUrl: string;
let nats: PrivateNats;
let sim: KubeSim;
let haproxy: RunningHaproxy;
let echo: EchoBackends;
let dir: string;
const appliance = `edge${randomBytes(3).toString('hex')}`;
const children: ChildProcess[] = [];

before(async () => {
  const stack = await testStack();
  redisUrl = stack.redisUrl;
  database = await createTestDatabase(stack.postgresUrl);
  nats = await startPrivateNats();
  dir = mkdtempSync(path.join(os.tmpdir(), 'portolan-applier-main-'));
  sim = await startKubeSim({ port: 0 });
  await sim.writeKubeconfig(path.join(dir, 'kubeconfig'));
  haproxy = await startHaproxy({ configDir: path.join(dir, 'haproxy'), appliance });
  echo = await startEchoBackends([
    { address: '127.0.0.2', port: await freePort() },
    { address: '127.0.0.3', port: await freePort() },
  ]);
  writeFileSync(path.join(dir, 'fleet.key'), randomBytes(32).toString('hex'));
  writeFileSync(
    path.join(dir, 'fleet.yaml'),
    `version: 1
clusters: [{ name: c1, kubeconfig: ./kubeconfig }]
appliances:
  - name: ${appliance}
    driver: haproxy
    drift: { intervalSeconds: 1, policy: correct }
    # These tests replace whole snapshots between scenarios; the safety hold has its own tests.
    safety: { maxRemovalFraction: 1 }
    haproxy: { configDir: ./haproxy, masterSocket: ${haproxy.masterSocket}, address: 127.0.0.1 }
bus: { url: ${nats.url} }
store: { url: ${database.url} }
leases: { redisUrl: ${redisUrl}, ttlMs: 2000, renewEveryMs: 400, retryEveryMs: 200 }
secrets: { keyFile: ./fleet.key }
`,
  );
});
after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await Promise.allSettled([haproxy?.stop(), echo?.close(), sim?.close(), nats?.stop()]);
  await database?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function startApplier(id: string, healthPort: number): { child: ChildProcess; output: () => string } {
  const child = spawn(
    process.execPath,
    [
      main,
      '--config',
      path.join(dir, 'fleet.yaml'),
      '--appliance',
      appliance,
      '--id',
      id,
      '--health-port',
      String(healthPort),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  return { child, output: () => out };
}

async function waitFor<T>(
  what: string,
  fn: () => Promise<T | null | undefined>,
  timeoutMs: number,
  output?: () => string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const v = await fn().catch(() => null);
    if (v !== null && v !== undefined) return v;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}\n${output?.() ?? ''}`);
}

function get(port: number, host: string, pathName = '/'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: pathName, headers: { host } }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => {
        body += d.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
  });
}

const lastApply = (leader: string) => async () =>
  database.db
    .selectFrom('applies')
    .selectAll()
    .where('appliance', '=', appliance)
    .where('leader_id', '=', leader)
    .where('status', 'in', ['succeeded', 'noop'])
    .orderBy('id', 'desc')
    .executeTakeFirst();

test('two applier processes on real HAProxy: the leader applies and serves, the follower takes over after SIGKILL, SIGTERM releases the lease', async (t) => {
  const listen = await freePort();
  const [b1, b2] = echo.backends;
  const member = (b: typeof b1) => ({
    address: b!.address,
    port: b!.port,
    state: 'active' as const,
    weight: 1,
    cluster: 'c1',
    node: '',
  });
  const web = { ...pool('web', []), members: [member(b1)] };
  sim.objects.create({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: 'ing-web', namespace: 'default' },
    spec: { rules: [{ host: 'web.example.com' }] },
  });
  const vs = { ...httpService(['ing-web'], [['web.example.com', 'web']]), port: listen };
  const s1 = await writeSnapshot(database.db, desiredState(appliance, [web], { virtualServices: [vs] }));

  const [healthA, healthB] = [await freePort(), await freePort()];
  const a = startApplier('a', healthA);
  const applied = await waitFor('the first apply by a', lastApply('a'), 30_000, a.output);
  assert.equal(String(applied.snapshot_id), s1);
  const reply = await get(listen, 'web.example.com');
  assert.equal(reply.status, 200);
  // main.ts replaced itself (same pid) by the tuned runtime.
  if (process.platform === 'linux') {
    const cmdline = readFileSync(`/proc/${a.child.pid}/cmdline`, 'utf8').split('\0');
    for (const flag of APPLIER_TUNING.flags) assert.ok(cmdline.includes(flag), `the applier runs with ${flag}`);
  }
  assert.equal((JSON.parse(reply.body) as { address: string }).address, b1!.address);
  assert.equal((await get(listen, 'unknown.example.com')).status, 404);
  const lb = await waitFor(
    'ingress status',
    async () => {
      const ing = sim.objects.get({
        apiVersion: 'networking.k8s.io/v1',
        kind: 'Ingress',
        namespace: 'default',
        name: 'ing-web',
      }) as { status?: { loadBalancer?: { ingress?: unknown[] } } };
      return ing.status?.loadBalancer?.ingress?.length ? ing.status.loadBalancer.ingress : null;
    },
    10_000,
    a.output,
  );
  assert.deepEqual(lb, [{ ip: '127.0.0.1' }]);
  const metrics = await waitFor(
    'metrics',
    async () => {
      const m = await get(healthA, 'localhost', '/metrics');
      return m.body.includes('portolan_applier_leader 1') ? m.body : null;
    },
    5000,
    a.output,
  );
  assert.match(metrics, /portolan_applier_operations_total\{result="ok"/);

  const b = startApplier('b', healthB);
  // A failure below must not leave b leading the group the next test starts on.
  t.after(() => void (b.child.exitCode === null && b.child.signalCode === null && b.child.kill('SIGKILL')));
  await waitFor(
    'b ready',
    async () => ((await get(healthB, 'localhost', '/readyz')).status === 200 ? true : null),
    30_000,
    b.output,
  );
  a.child.kill('SIGKILL');
  const s2 = await writeSnapshot(
    database.db,
    desiredState(appliance, [{ ...web, members: [member(b1), member(b2)] }], { virtualServices: [vs] }),
  );
  const byB = await waitFor(
    'the takeover apply by b',
    async () => {
      const row = await lastApply('b')();
      return row !== undefined && String(row.snapshot_id) === s2 ? row : null;
    },
    30_000,
    b.output,
  );
  assert.ok(Number(byB.epoch) > Number(applied.epoch), 'the new leader writes under a newer epoch');
  const seen = new Set<string>();
  for (let i = 0; i < 6; i++)
    seen.add((JSON.parse((await get(listen, 'web.example.com')).body) as { address: string }).address);
  assert.deepEqual([...seen].sort(), [b1!.address, b2!.address]);

  await sleep(1500); // at least one drift check (1 s) by b after its apply
  const drift = await database.db
    .selectFrom('drift_observations')
    .select(['objects'])
    .where('appliance', '=', appliance)
    .execute();
  assert.deepEqual(drift, [], `no drift without an out-of-band change\n--- a\n${a.output()}\n--- b\n${b.output()}`);
  const exited = new Promise<number | null>((resolve) => b.child.once('exit', (code) => resolve(code)));
  b.child.kill('SIGTERM');
  assert.equal(await exited, 0);
  const lease = new RedisLeaseClient(redisUrl, { commandTimeoutMs: 1000 });
  try {
    await lease.ready(2000);
    const [status] = await groupStatuses([appliance], lease, new PgEpochStore(database.db));
    assert.equal(status?.holder, null, 'a stopped leader releases its lease');
  } finally {
    lease.close();
  }
});

test('SIGSTOP of the leader past its lease, then SIGCONT: the successor applies, the resumed one writes nothing under its old epoch', async () => {
  const listen = await freePort();
  const [b1, b2] = echo.backends;
  const member = (b: typeof b1) => ({
    address: b!.address,
    port: b!.port,
    state: 'active' as const,
    weight: 1,
    cluster: 'c1',
    node: '',
  });
  const vs = { ...httpService(['ing-web'], [['web.example.com', 'web']]), port: listen };
  const web = { ...pool('web', []), members: [member(b1)] };
  await writeSnapshot(database.db, desiredState(appliance, [web], { virtualServices: [vs] }));
  const a = startApplier('a2', await freePort());
  const first = await waitFor('an apply by a2', lastApply('a2'), 30_000, a.output);
  const b = startApplier('b2', await freePort());
  try {
    await sleep(500);
    a.child.kill('SIGSTOP');
    const s2 = await writeSnapshot(
      database.db,
      desiredState(appliance, [{ ...web, members: [member(b1), member(b2)] }], { virtualServices: [vs] }),
    );
    const byB = await waitFor(
      'the apply by b2',
      async () => {
        const row = await lastApply('b2')();
        return row !== undefined && String(row.snapshot_id) === s2 ? row : null;
      },
      30_000,
      b.output,
    );
    await sleep(2000); // a2 stays stopped well past its 2 s lease
    a.child.kill('SIGCONT');
    await waitFor(
      'a2 logs lost leadership',
      async () => (a.output().includes('lost leadership') ? true : null),
      3000,
      a.output,
    );
    await sleep(1000);
    const late = await database.db
      .selectFrom('applies')
      .select(['id', 'status'])
      .where('appliance', '=', appliance)
      .where('epoch', '=', first.epoch)
      .where('id', '>', byB.id)
      .where('status', '<>', 'fenced')
      .execute();
    assert.deepEqual(late, [], 'no record under the old epoch after the successor applied');
    const seen = new Set<string>();
    for (let i = 0; i < 6; i++)
      seen.add((JSON.parse((await get(listen, 'web.example.com')).body) as { address: string }).address);
    assert.deepEqual([...seen].sort(), [b1!.address, b2!.address], "HAProxy serves the successor's snapshot");
  } finally {
    a.child.kill('SIGCONT');
    for (const c of [a.child, b.child]) c.kill('SIGTERM');
    await Promise.all(
      [a.child, b.child].map((c) =>
        c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once('exit', r)) : undefined,
      ),
    );
  }
});
