import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startHaproxy, stopHaproxy } from './start-haproxy.ts';
import { HaproxyMasterClient } from './haproxy-master-client.ts';
import { HaproxyRuntimeClient } from './haproxy-runtime-client.ts';
import { validateHaproxyConfig } from './validate-haproxy-config.ts';

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'portolan-haproxy-start-'));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('startHaproxy runs master + worker on an empty, valid config; stop ends both', async () => {
  const dir = tempDir();
  try {
    const haproxy = await startHaproxy({ configDir: dir });
    let workerPid: number | undefined;
    try {
      assert.deepEqual(await validateHaproxyConfig('haproxy', haproxy.configFile), { ok: true });
      const status = await new HaproxyMasterClient(haproxy.masterSocket).showProc();
      assert.equal(status.master.pid, haproxy.pid);
      assert.equal(status.workers.length, 1);
      workerPid = status.workers[0]?.pid;
      const config = fs.readFileSync(haproxy.configFile, 'utf8');
      assert.match(config, /^\s+master-worker$/m);
      assert.match(config, new RegExp(`stats socket ${haproxy.runtimeSocket} mode 600 level admin`));
      assert.doesNotMatch(config, /^frontend /m);
    } finally {
      await haproxy.stop();
    }
    assert.equal(isAlive(haproxy.pid), false);
    assert.ok(workerPid !== undefined && !isAlive(workerPid), 'the worker is gone too');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a detached HAProxy outlives its handle and is stopped through its pid file', async () => {
  const dir = tempDir();
  try {
    const haproxy = await startHaproxy({ configDir: dir, detached: true });
    assert.ok(isAlive(haproxy.pid));
    assert.equal(await stopHaproxy(dir), true);
    assert.equal(isAlive(haproxy.pid), false);
    assert.equal(await stopHaproxy(dir), false, 'nothing left to stop');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('runtime client: a pipelined batch gets every reply in order; after a reload it reconnects to the new worker', async () => {
  const dir = tempDir();
  const haproxy = await startHaproxy({ configDir: dir });
  const runtime = new HaproxyRuntimeClient(haproxy.runtimeSocket);
  try {
    const commands = Array.from({ length: 300 }, (_, i) =>
      i % 2 === 0 ? `set server b${i}/s1 state ready` : 'show servers state',
    );
    const replies = await runtime.execute(commands);
    assert.equal(replies.length, 300);
    replies.forEach((reply, i) => assert.match(reply, i % 2 === 0 ? /^No such backend\.$/ : /^1\n# be_id /));
    const pidBefore = /Pid: (\d+)/.exec(await runtime.command('show info'))?.[1];

    const master = new HaproxyMasterClient(haproxy.masterSocket);
    assert.match(
      await master.workerCommand('show info'),
      new RegExp(`Pid: ${pidBefore}\n`),
      '@1 reaches the current worker',
    );
    runtime.disconnect();
    const outcome = await master.reload();
    assert.equal(outcome.ok, true);
    const pidAfter = /Pid: (\d+)/.exec(await runtime.command('show info'))?.[1];
    assert.ok(outcome.ok && String(outcome.workerPid) === pidAfter);
    assert.notEqual(pidAfter, pidBefore);
  } finally {
    await runtime.close();
    await haproxy.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('an unreachable socket is an infrastructure error with a stable code, not a hang', async () => {
  const runtime = new HaproxyRuntimeClient(path.join(os.tmpdir(), 'portolan-no-such.sock'), { timeoutMs: 1_000 });
  await assert.rejects(
    () => runtime.command('show info'),
    (error: Error & { code?: string }) => error.code === 'HAPROXY_SOCKET',
  );
  const master = new HaproxyMasterClient(path.join(os.tmpdir(), 'portolan-no-such-master.sock'), { timeoutMs: 1_000 });
  await assert.rejects(
    () => master.showProc(),
    (error: Error & { code?: string }) => error.code === 'HAPROXY_SOCKET',
  );
});
