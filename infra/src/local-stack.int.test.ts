import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { daemonService } from './services/daemon-service.ts';
import { StackServiceError } from './errors.ts';
import { freePort } from './process-control.ts';

const run = promisify(execFile);
const cli = path.resolve(import.meta.dirname, '..', '..', 'packages', 'cli', 'bin', 'portolan.js');

test('`portolan stack up`, `status` and `down` on private ports: all four services healthy, then stopped', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'portolan-stack-'));
  const env = {
    ...process.env,
    PORTOLAN_STATE_DIR: dir,
    PORTOLAN_POSTGRES_PORT: String(await freePort()),
    PORTOLAN_NATS_PORT: String(await freePort()),
    PORTOLAN_NATS_MONITOR_PORT: String(await freePort()),
    PORTOLAN_REDIS_PORT: String(await freePort()),
    PORTOLAN_HAPROXY_HTTP_PORT: String(await freePort()),
    PORTOLAN_HAPROXY_HTTPS_PORT: String(await freePort()),
    PORTOLAN_HAPROXY_STATS_PORT: String(await freePort()),
  };
  const portolan = (...args: string[]) => run(process.execPath, [cli, ...args], { env, timeout: 120_000 });
  try {
    await portolan('stack', 'up');
    const status = await portolan('stack', 'status');
    const rows = status.stdout
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(/\s+/).slice(0, 2));
    assert.deepEqual(rows, [
      ['postgres', 'healthy'],
      ['nats', 'healthy'],
      ['redis', 'healthy'],
      ['haproxy', 'healthy'],
    ]);
    // Idempotent: a second `up` finds everything running and changes nothing.
    await portolan('stack', 'up');
    await portolan('stack', 'down');
    const after = await portolan('stack', 'status').catch((e: { code: number; stdout: string }) => e);
    assert.equal((after as { code?: number }).code, 1, 'status exits 1 when services are down');
    assert.match((after as { stdout: string }).stdout, /postgres\s+stopped/);
  } finally {
    await portolan('stack', 'down').catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a taken port is refused with an error naming the service and the port', async () => {
  const blocker = net.createServer().listen(0, '127.0.0.1');
  await new Promise((r) => blocker.once('listening', r));
  const port = (blocker.address() as net.AddressInfo).port;
  const dir = mkdtempSync(path.join(tmpdir(), 'portolan-port-'));
  try {
    const svc = daemonService({
      name: 'redis',
      port,
      dir,
      command: '/bin/sleep',
      args: ['30'],
      healthy: async () => false,
    });
    await assert.rejects(
      svc.start(),
      (e: unknown) =>
        e instanceof StackServiceError &&
        e.code === 'STACK_PORT_TAKEN' &&
        e.message.includes('redis') &&
        e.message.includes(String(port)),
    );
  } finally {
    blocker.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a binary that fails to start is reported with the last lines of its log', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'portolan-fail-'));
  try {
    const script = path.join(dir, 'fails.sh');
    writeFileSync(script, '#!/bin/sh\necho "FATAL: could not open configuration file" >&2\nexit 3\n', { mode: 0o755 });
    const svc = daemonService({
      name: 'nats',
      port: await freePort(),
      dir,
      command: script,
      args: [],
      healthy: async () => false,
      startTimeoutMs: 5000,
    });
    await assert.rejects(
      svc.start(),
      (e: unknown) =>
        e instanceof StackServiceError &&
        e.code === 'STACK_START_FAILED' &&
        /exited during start/.test(e.message) &&
        e.message.includes('FATAL: could not open configuration file'),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
