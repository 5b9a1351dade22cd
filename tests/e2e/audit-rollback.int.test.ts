// End to end: the real watcher, planner and applier processes route traffic through a real HAProxy; an operator's
// `portolan rollback` (the CLI binary) restores the earlier routing through the leader, pins planning, and
// `portolan resume` lets the current plan through again.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { startEchoBackends, type EchoBackends } from '@portolan/echo-backend';
import { startHaproxy, type RunningHaproxy } from '@portolan/haproxy-driver';
import { freePort, testStack } from '@portolan/infra';
import { startKubeSim, type KubeSim } from '@portolan/kube-sim';
import { PLANNER_TUNING } from '@portolan/planner';
import { createTestDatabase, type TestDatabase } from '@portolan/store';

const root = path.resolve(import.meta.dirname, '..', '..');
const node = process.execPath;
const cli = path.join(root, 'packages', 'cli', 'bin', 'portolan.js');
const exec = promisify(execFile);
const A = '127.0.31.1';
const B = '127.0.31.2';
const C = '127.0.31.3';
const D = '127.0.31.4';

let dir: string;
let sim: KubeSim;
let echo: EchoBackends;
let haproxy: RunningHaproxy;
let tdb: TestDatabase;
let appliance: string;
let configFile: string;
/** The operator token the CLI's rollback and resume present (PORTOLAN_TOKEN); its hash is in the fleet config. */
const operatorToken = `ptl_${randomBytes(32).toString('base64url')}`;
let httpPort: number;
let echoPort: number;
const children: ChildProcess[] = [];

before(async () => {
  const stack = await testStack();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portolan-e2e-rollback-'));
  appliance = `edge-${randomBytes(3).toString('hex')}`;
  sim = await startKubeSim({ tls: true });
  await sim.writeKubeconfig(path.join(dir, 'kubeconfig'));
  echoPort = await freePort(A);
  echo = await startEchoBackends([A, B, C, D].map((address) => ({ address, port: echoPort })));
  httpPort = await freePort('127.0.0.1');
  const haproxyDir = path.join(dir, 'haproxy');
  haproxy = await startHaproxy({
    configDir: haproxyDir,
    masterSocket: path.join(haproxyDir, 'master.sock'),
    appliance,
  });
  tdb = await createTestDatabase(stack.postgresUrl);
  fs.writeFileSync(path.join(dir, 'fleet.key'), randomBytes(32).toString('hex'));
  const stream = `E2E_RB_${randomBytes(3).toString('hex')}`;
  configFile = path.join(dir, 'fleet.yaml');
  fs.writeFileSync(
    configFile,
    `version: 1
clusters:
  - name: c1
    kubeconfig: kubeconfig
    watch: { heartbeatSeconds: 1 }
appliances:
  - name: ${appliance}
    driver: haproxy
    # The safety hold is not what this test is about: a routing switch removes a whole pool.
    safety: { maxRemovalFraction: 1 }
    haproxy: { configDir: haproxy, masterSocket: haproxy/master.sock, address: 127.0.0.1, httpPort: ${httpPort}, httpsPort: ${await freePort('127.0.0.1')} }
bus: { url: "${stack.natsUrl}", stream: ${stream}, subjectPrefix: ${stream} }
store: { url: "${tdb.url}" }
leases: { redisUrl: "${stack.redisUrl}", ttlMs: 2000, renewEveryMs: 400, retryEveryMs: 200 }
secrets: { keyFile: fleet.key }
console:
  tokens:
    - { name: e2e-operator, role: operator, sha256: ${createHash('sha256').update(operatorToken).digest('hex')} }
`,
  );
  sim.objects.create({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IngressClass',
    metadata: { name: 'portolan' },
    spec: { controller: 'portolan.dev/ingress-controller' },
  });
  for (const [name, backends] of [
    ['web', [A, B]],
    ['web-v2', [C]],
  ] as const) {
    sim.objects.create({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: 'default' },
      spec: { type: 'ClusterIP', ports: [{ name: 'http', port: 80, targetPort: echoPort, protocol: 'TCP' }] },
    });
    sim.objects.create(slice(name, backends));
  }
  sim.objects.create(ingress('web'));
  children.push(
    run('watcher', [
      path.join(root, 'services/watcher/src/main.ts'),
      '--config',
      configFile,
      '--cluster',
      'c1',
      '--health-port',
      '0',
    ]),
    run('planner', [path.join(root, 'services/planner/src/main.ts'), '--config', configFile, '--health-port', '0']),
    run('applier', [
      path.join(root, 'services/applier/src/main.ts'),
      '--config',
      configFile,
      '--appliance',
      appliance,
      '--id',
      'replica-1',
      '--health-port',
      '0',
    ]),
  );
});

after(async () => {
  for (const c of children) c.kill('SIGTERM');
  await Promise.all(children.map((c) => waitExit(c, 12_000)));
  await haproxy?.stop();
  await echo?.close();
  await sim?.close();
  await tdb?.drop();
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
});

test('rollback restores the earlier routing through HAProxy, pins planning, and resume lets the current plan through', async () => {
  await until('traffic reaches the web backends', async () => sameSet(await answering(6), [A, B]));
  // The planner's main.ts replaced itself (same pid) by the tuned runtime, with the flags it takes on this machine.
  if (process.platform === 'linux') {
    const pid = children[1]!.pid;
    assert.ok(
      fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes('PORTOLAN_PLANNER_RUNTIME=tuned'),
      'the planner runs as its tuned runtime',
    );
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    for (const flag of PLANNER_TUNING.flags)
      assert.ok(cmdline.includes(flag), `the planner runs with ${flag}: ${cmdline.join(' ')}`);
  }
  const good = await headSnapshot();
  // HAProxy serves a change a moment before its apply record is written: "good at" is after that record.
  await until(
    "the good snapshot's apply is recorded",
    async () =>
      (await tdb.db
        .selectFrom('applies')
        .select('id')
        .where('appliance', '=', appliance)
        .where('snapshot_id', '=', good)
        .where('status', 'in', ['succeeded', 'noop'])
        .executeTakeFirst()) !== undefined,
  );
  const goodAt = new Date();

  // A bad change: the Ingress now sends web.test to web-v2.
  sim.objects.apply(ingress('web-v2'));
  await until('the bad change reaches HAProxy', async () => sameSet(await answering(4), [C]));

  const rollback = await portolan([
    'rollback',
    appliance,
    '--to',
    good,
    '--yes',
    '--reason',
    'web-v2 is broken',
    '--wait',
    '30',
  ]);
  assert.equal(rollback.code, 0, rollback.stderr);
  assert.match(rollback.stdout, /Appended rollback snapshot \d+ \(content of snapshot \d+, reason: web-v2 is broken\)/);
  assert.match(rollback.stdout, /Applied by apply \d+: succeeded/);
  assert.ok(sameSet(await answering(8), [A, B]), 'the earlier routing is back');

  // While pinned, new plans are held: scaling web-v2 does not reach HAProxy.
  sim.objects.apply(slice('web-v2', [C, D]));
  await until('the planner records the held plan', async () => (await headSnapshotRow()).held);
  assert.match((await headSnapshotRow()).hold_reason ?? '', /^pinned by rollback to snapshot \d+$/);
  await sleep(2500); // more than the applier's head poll
  assert.ok(sameSet(await answering(6), [A, B]), 'a pinned appliance keeps the rollback');

  const history = JSON.parse((await portolan(['history', appliance, '-o', 'json'])).stdout) as {
    entries: {
      type: string;
      origin?: string;
      reason?: string | null;
      trigger?: string;
      status?: string;
      rollbackReason?: string | null;
    }[];
  };
  assert.ok(
    history.entries.some((e) => e.type === 'snapshot' && e.origin === 'rollback' && e.reason === 'web-v2 is broken'),
  );
  assert.ok(
    history.entries.some(
      (e) =>
        e.type === 'apply' &&
        e.trigger === 'rollback' &&
        e.status === 'succeeded' &&
        e.rollbackReason === 'web-v2 is broken',
    ),
  );

  const resume = await portolan(['resume', appliance, '--reason', 'web-v2 is fixed']);
  assert.equal(resume.code, 0, resume.stderr);
  assert.match(resume.stdout, /Released current planning/);
  await until('the current plan applies after resume', async () => sameSet(await answering(8), [C, D]));

  const status = await portolan(['status', '-o', 'json']);
  const report = JSON.parse(status.stdout) as {
    problems: string[];
    appliances: { leader: string | null; pinnedTo: string | null; lag: { snapshots: number } }[];
  };
  assert.deepEqual(report.problems, [], status.stdout);
  assert.deepEqual([report.appliances[0]?.leader, report.appliances[0]?.pinnedTo], ['replica-1', null]);

  // The configuration HAProxy had before the bad change, rebuilt in a scratch directory (files, checked by haproxy -c).
  const scratch = path.join(dir, 'replayed');
  const replay = await portolan(['replay', 'apply', '--to', scratch, '--time', goodAt.toISOString()]);
  assert.equal(replay.code, 0, replay.stdout + replay.stderr);
  assert.match(replay.stdout, /haproxy -c: valid/);
  const cfg = fs.readFileSync(path.join(scratch, 'haproxy.cfg'), 'utf8');
  assert.match(cfg, new RegExp(`server s\\d+ ${A.replaceAll('.', '\\.')}:${echoPort} enabled`));
  assert.match(cfg, new RegExp(`server s\\d+ ${B.replaceAll('.', '\\.')}:${echoPort} enabled`));
  assert.ok(!cfg.includes(C), 'web-v2 was not routed then');
  assert.ok(
    cfg.includes(`${scratch}/`) && !cfg.includes(`${path.join(dir, 'haproxy')}/`),
    'paths point into the scratch directory',
  );
});

/** Runs the portolan CLI binary (not a terminal on stdin) against the test's fleet config. */
async function portolan(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await exec(node, [cli, ...args, '--config', configFile], {
      cwd: root,
      timeout: 60_000,
      env: { ...process.env, PORTOLAN_TOKEN: operatorToken },
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, stdout: x.stdout, stderr: x.stderr };
  }
}

async function headSnapshotRow(): Promise<{ id: string; held: boolean; hold_reason: string | null }> {
  const row = await tdb.db
    .selectFrom('snapshot_heads as h')
    .innerJoin('snapshots as s', 's.id', 'h.snapshot_id')
    .select(['s.id', 's.held', 's.hold_reason'])
    .where('h.appliance', '=', appliance)
    .executeTakeFirst();
  return row === undefined
    ? { id: '', held: false, hold_reason: null }
    : { id: String(row.id), held: row.held, hold_reason: row.hold_reason };
}

async function headSnapshot(): Promise<string> {
  return (await headSnapshotRow()).id;
}

/** Which backends answered `n` requests for web.test through HAProxy (connection failures and non-200s count as ''). */
async function answering(n: number): Promise<string[]> {
  const seen: string[] = [];
  for (let i = 0; i < n; i++) seen.push(await get());
  return seen;
}

function get(): Promise<string> {
  return new Promise((resolve) => {
    const req = http.get(
      {
        host: '127.0.0.1',
        port: httpPort,
        path: '/',
        headers: { host: 'web.test', connection: 'close' },
        timeout: 2000,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => {
          try {
            resolve(res.statusCode === 200 ? String((JSON.parse(body) as { address?: string }).address ?? '') : '');
          } catch {
            resolve('');
          }
        });
      },
    );
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(''));
  });
}

function sameSet(seen: readonly string[], allowed: readonly string[]): boolean {
  return seen.length > 0 && seen.every((s) => allowed.includes(s));
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(250);
  }
  const logs = children
    .map(
      (c) =>
        `--- ${c.spawnfile} ${(c as ChildProcess & { logName?: string }).logName ?? ''}\n${tail((c as ChildProcess & { logFile?: string }).logFile)}`,
    )
    .join('\n');
  assert.fail(`timed out waiting until ${what}\n${logs}`);
}

function tail(file: string | undefined): string {
  if (file === undefined || !fs.existsSync(file)) return '';
  return fs.readFileSync(file, 'utf8').split('\n').slice(-15).join('\n');
}

function run(name: string, args: readonly string[]): ChildProcess {
  const logFile = path.join(dir, `${name}.log`);
  const fd = fs.openSync(logFile, 'a');
  const child = spawn(node, args, { cwd: root, stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  Object.assign(child, { logFile, logName: name });
  return child;
}

function waitExit(child: ChildProcess, timeoutMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve();
    }, timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function slice(
  service: string,
  addresses: readonly string[],
): { apiVersion: string; kind: string; metadata: Record<string, unknown>; [k: string]: unknown } {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: `${service}-1`, namespace: 'default', labels: { 'kubernetes.io/service-name': service } },
    addressType: 'IPv4',
    ports: [{ name: 'http', port: echoPort, protocol: 'TCP' }],
    endpoints: addresses.map((a) => ({
      addresses: [a],
      conditions: { ready: true, serving: true, terminating: false },
    })),
  };
}

function ingress(service: string): {
  apiVersion: string;
  kind: string;
  metadata: Record<string, unknown>;
  spec: Record<string, unknown>;
} {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      ingressClassName: 'portolan',
      rules: [
        {
          host: 'web.test',
          http: {
            paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: service, port: { number: 80 } } } }],
          },
        },
      ],
    },
  };
}
