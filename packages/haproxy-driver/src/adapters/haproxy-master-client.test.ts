import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { HaproxyMasterClient } from './haproxy-master-client.ts';

// HAProxy's master refuses connections (ECONNREFUSED), and resets those waiting to be accepted (ECONNRESET), while it
// re-executes itself for a reload: about 100 ms per reload of a small config with HAProxy 2.6 here. These tests make
// each case on purpose with real Unix sockets; the driver against a real HAProxy that someone else reloads is tested
// in runtime-updates.int.test.ts.

type CliError = Error & { code?: string; cause?: { cause?: { code?: string }; code?: string } };
const causeCode = (error: CliError): string | undefined => error.cause?.cause?.code ?? error.cause?.code;

function socketDir(): { socketPath: string; [Symbol.dispose](): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portolan-master-'));
  return {
    socketPath: path.join(dir, 'master.sock'),
    [Symbol.dispose]: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/** A socket file nobody listens on any more (its process exited without closing it): connecting is refused. */
function staleSocket(socketPath: string): void {
  const made = spawnSync(process.execPath, [
    '-e',
    `require('node:net').createServer().listen(${JSON.stringify(socketPath)}, () => process.exit(0))`,
  ]);
  assert.equal(made.status, 0, String(made.stderr));
  assert.ok(fs.statSync(socketPath).isSocket());
}

/** A master answering every command with "answer to <command>"; counts the connections it accepted. */
async function answeringMaster(
  socketPath: string,
): Promise<{ readonly server: net.Server; readonly accepted: () => number }> {
  let accepted = 0;
  const server = net.createServer((conn) => {
    accepted += 1;
    let text = '';
    conn.setEncoding('utf8');
    conn.on('data', (chunk: string) => (text += chunk));
    conn.once('end', () => conn.end(`answer to ${text.trim()}\n`));
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return { server, accepted: () => accepted };
}

test('a command the master refuses is tried again until the master is back', async () => {
  using dir = socketDir();
  staleSocket(dir.socketPath);
  const reply = new HaproxyMasterClient(dir.socketPath, { timeoutMs: 5_000 }).command('reload', { repeatable: false });
  await sleep(150);
  fs.unlinkSync(dir.socketPath); // the same tick as the listen below: the client cannot see the path missing
  const master = await answeringMaster(dir.socketPath);
  try {
    assert.equal(await reply, 'answer to reload\n', 'refused means not sent: even a reload is tried again');
    assert.equal(master.accepted(), 1);
  } finally {
    master.server.close();
  }
});

test('a command reset by the master is sent again unless it must not run twice', async () => {
  using dir = socketDir();
  for (const [command, repeatable, lastCause] of [
    ['reload', false, 'ECONNRESET'],
    ['show proc', true, 'ENOENT'],
  ] as const) {
    const master = await answeringMaster(dir.socketPath);
    const reply = new HaproxyMasterClient(dir.socketPath, { timeoutMs: 5_000 }).command(command, { repeatable });
    master.server.close(); // the connection waiting to be accepted is reset, and the socket file goes away
    await assert.rejects(
      reply,
      (error: CliError) =>
        error.code === 'HAPROXY_SOCKET' &&
        /master CLI unreachable/.test(error.message) &&
        causeCode(error) === lastCause,
    );
    assert.equal(master.accepted(), 0);
  }
});

test('a master that keeps refusing fails the command within its time bound, naming the attempts', async () => {
  using dir = socketDir();
  staleSocket(dir.socketPath);
  await assert.rejects(
    () => new HaproxyMasterClient(dir.socketPath, { timeoutMs: 300 }).command('show proc'),
    (error: CliError) =>
      error.code === 'HAPROXY_SOCKET' &&
      /refused or reset ([2-9]|\d\d+) connections within 300 ms/.test(error.message) &&
      causeCode(error) === 'ECONNREFUSED',
  );
});

test('a missing master socket fails at once, not after the time bound', async () => {
  using dir = socketDir();
  const started = performance.now();
  await assert.rejects(
    () => new HaproxyMasterClient(dir.socketPath, { timeoutMs: 60_000 }).command('show proc'),
    (error: CliError) => error.code === 'HAPROXY_SOCKET' && causeCode(error) === 'ENOENT',
  );
  assert.ok(performance.now() - started < 30_000, 'did not wait out the 60 s bound');
});
