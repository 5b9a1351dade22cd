// The leader monitor as a process: against the test stack, its /metrics show a group unled, then led (with the
// epoch granted), then unled again once the leader stops, and /readyz turns ready after the first read.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, testStack } from '@portolan/infra';
import { LeaderElector, leaseTimings, PgEpochStore, RedisLeaseClient } from '@portolan/leadership';
import { createTestDatabase, type TestDatabase } from '@portolan/store';

const main = path.join(import.meta.dirname, 'main.ts');
const group = `g${randomBytes(4).toString('hex')}`;
let database: TestDatabase;
let redisUrl: string;
let dir: string;
let monitor: ChildProcess | undefined;
let healthPort: number;
let output = '';

before(async () => {
  const stack = await testStack();
  redisUrl = stack.redisUrl;
  database = await createTestDatabase(stack.postgresUrl);
  dir = mkdtempSync(path.join(os.tmpdir(), 'portolan-leader-main-'));
  writeFileSync(
    path.join(dir, 'fleet.yaml'),
    `version: 1
clusters: [{ name: c1, kubeconfig: ./kubeconfig }]
appliances:
  - name: edge
    group: ${group}
    driver: haproxy
    haproxy: { configDir: ./haproxy, masterSocket: ./haproxy/master.sock, address: 127.0.0.1 }
bus: { url: nats://127.0.0.1:1 }
store: { url: ${database.url} }
leases: { redisUrl: ${redisUrl}, ttlMs: 1000, renewEveryMs: 200, retryEveryMs: 100 }
secrets: { keyFile: ./fleet.key }
`,
  );
  healthPort = await freePort();
  monitor = spawn(
    process.execPath,
    [main, '--config', path.join(dir, 'fleet.yaml'), '--health-port', String(healthPort), '--interval', '0.1'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  monitor.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  monitor.stderr!.on('data', (d: Buffer) => (output += d.toString()));
});
after(async () => {
  if (monitor !== undefined && monitor.exitCode === null) {
    monitor.kill('SIGTERM');
    await new Promise((resolve) => monitor!.once('exit', resolve));
  }
  await database?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The value of one series of /metrics, or null while the monitor does not answer or has not set it. */
async function metric(name: string): Promise<number | null> {
  const res = await fetch(`http://127.0.0.1:${healthPort}/metrics`).catch(notListening);
  if (res === null) return null;
  const line = (await res.text()).split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(`group="${group}"`));
  return line === undefined ? null : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** fetch rejects with a TypeError while nothing listens on the port yet. */
function notListening(e: unknown): null {
  if (e instanceof TypeError) return null;
  throw e;
}

async function waitFor(ok: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) assert.fail(`the monitor did not get ready; its output:\n${output}`);
    await sleep(50);
  }
}

async function waitForMetric(name: string, want: (v: number) => boolean, timeoutMs = 10_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let last: number | null = null;
  while (Date.now() < deadline) {
    last = await metric(name);
    if (last !== null && want(last)) return last;
    await sleep(50);
  }
  assert.fail(`${name}{group="${group}"} stayed ${String(last)}; monitor output:\n${output}`);
}

test('the monitor shows a group unled, led with its epoch and lease, then unled after the leader stops', async () => {
  // Ready after the first read that reached both Redis and Postgres (one before Redis connects fails closed).
  await waitFor(async () => (await fetch(`http://127.0.0.1:${healthPort}/readyz`).catch(notListening))?.status === 200);
  assert.equal(await metric('portolan_leader_group_has_leader'), 0);
  assert.equal(await metric('portolan_leader_group_epoch'), 0, 'no epoch was ever granted to the group');

  const t = leaseTimings({ ttlMs: 1000, renewEveryMs: 200, retryEveryMs: 100 });
  assert.ok(t.ok);
  const lease = new RedisLeaseClient(redisUrl, { commandTimeoutMs: t.timings.commandTimeoutMs });
  const elector = new LeaderElector({
    group,
    holder: 'replica-1',
    timings: t.timings,
    lease,
    epochs: new PgEpochStore(database.db),
  });
  try {
    elector.start();
    const term = await elector.waitForLeadership();
    await waitForMetric('portolan_leader_group_has_leader', (v) => v === 1);
    assert.equal(await waitForMetric('portolan_leader_group_epoch', (v) => v > 0), term.epoch);
    const remaining = await metric('portolan_leader_lease_remaining_seconds');
    assert.ok(remaining !== null && remaining > 0 && remaining <= 1, `lease remaining ${String(remaining)} s`);

    await elector.stop();
    await waitForMetric('portolan_leader_group_has_leader', (v) => v === 0);
    assert.equal(await metric('portolan_leader_lease_remaining_seconds'), 0);
    assert.equal(await metric('portolan_leader_group_epoch'), term.epoch, 'the last epoch granted stays visible');
  } finally {
    await elector.stop();
    lease.close();
  }
});
