import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, closeSync, rmSync, writeSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isSystemError } from '@portolan/errors';
import { SignalError, SpawnError, StackServiceError } from './errors.ts';

/** Last `lines` lines of a log file, or a note that it is empty — shown in every start error. */
export function logTail(file: string, lines = 15): string {
  if (!existsSync(file)) return '(no log written)';
  const text = readFileSync(file, 'utf8').trimEnd();
  if (text === '') return '(log is empty)';
  return text
    .split('\n')
    .slice(-lines)
    .map((l) => `    ${l}`)
    .join('\n');
}

/** True when a process with this pid exists (signal 0 probes without killing). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Reads a pid file; null when missing or unparsable. */
export function readPid(file: string): number | null {
  if (!existsSync(file)) return null;
  const pid = Number(readFileSync(file, 'utf8').trim().split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/** True when something accepts TCP connections on 127.0.0.1:port. */
export function isPortOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Starts a long-running daemon detached from this process, its output appended to `logFile`. Returns its pid. */
export function spawnDaemon(
  command: string,
  args: readonly string[],
  logFile: string,
  options: { cwd?: string; uid?: number; gid?: number; env?: Readonly<Record<string, string>> } = {},
): number {
  const fd = openSync(logFile, 'a');
  try {
    const child = spawn(command, args, {
      detached: true,
      stdio: ['ignore', fd, fd],
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      ...(options.uid === undefined ? {} : { uid: options.uid }),
      ...(options.gid === undefined ? {} : { gid: options.gid }),
      ...(options.env === undefined ? {} : { env: { ...process.env, ...options.env } }),
    });
    child.unref();
    if (child.pid === undefined) throw new SpawnError(`could not spawn ${command}`);
    return child.pid;
  } finally {
    closeSync(fd);
  }
}

/** Polls `check` until it returns true or `timeoutMs` passes; returns whether it succeeded. */
export async function waitFor(
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
  everyMs = 100,
): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (performance.now() > deadline) return false;
    await sleep(everyMs);
  }
}

/**
 * Sends `signal` to `pid`; false when the process is already gone (ESRCH). Any other failure (EPERM: the pid
 * now belongs to someone else's process) is an error the caller must see, not a process to forget.
 */
export function signalUnlessGone(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch (error) {
    if (isSystemError(error, 'ESRCH')) return false;
    throw new SignalError(`cannot send ${signal} to process ${pid}`, { cause: error });
  }
}

/** Sends SIGTERM, waits up to `graceMs`, then SIGKILL. */
export async function stopPid(pid: number, graceMs = 10_000): Promise<void> {
  if (!isAlive(pid)) return;
  if (!signalUnlessGone(pid, 'SIGTERM')) return;
  if (await waitFor(() => !isAlive(pid), graceMs)) return;
  signalUnlessGone(pid, 'SIGKILL');
  await waitFor(() => !isAlive(pid), 2000);
}

/**
 * A TCP port that was free on `host` a moment ago, outside the kernel's ephemeral range: a port the kernel hands
 * out for port 0 can be taken as the source port of any outgoing connection before the service it was chosen for
 * binds it (the likely cause of an e2e applier finding its health port taken). Random candidates below the range
 * are tried by binding them; after 50 taken ones, the kernel's choice.
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const [low, high] = ephemeralPorts();
  const [from, to] = low > 12_000 ? [10_000, low] : [high + 1, 65_536];
  for (let attempt = 0; attempt < 50 && to > from; attempt++) {
    const port = from + Math.floor(Math.random() * (to - from));
    if (!reservePort(port)) continue;
    if ((await listenOnce(port, host)) !== null) return port;
  }
  return (await listenOnce(0, host))!;
}

/**
 * The first of `count` consecutive ports that were free on `host` a moment ago, below the ephemeral range and
 * claimed like `freePort`'s: for a setting that lays out several ports from one (`portolan up --base-port`,
 * PORTOLAN_HA_BASE_PORT). A candidate range with one port taken or claimed is skipped (its claims held until exit).
 */
export async function freePortRange(count: number, host = '127.0.0.1'): Promise<number> {
  const [low, high] = ephemeralPorts();
  const [from, to] = low > 12_000 ? [10_000, low - count] : [high + 1, 65_536 - count];
  for (let attempt = 0; attempt < 50 && to > from; attempt++) {
    const base = from + Math.floor(Math.random() * (to - from));
    const ports = Array.from({ length: count }, (_, i) => base + i);
    if (!ports.every((p) => reservePort(p))) continue;
    const bound = await Promise.all(ports.map((p) => listenOnce(p, host)));
    if (bound.every((b) => b !== null)) return base;
  }
  throw new StackServiceError('STACK_PORT_TAKEN', 'ports', `found no ${count} consecutive free ports on ${host}`);
}

/** Where processes note the ports they chose (one file per port, holding the owner's pid). */
const RESERVATIONS = path.join(os.tmpdir(), 'portolan-ports');
const reserved: string[] = [];

/**
 * Claims a port for this process until it exits, so two processes picking at once (parallel test files, each
 * starting a pipeline of a dozen services) never hand out the same one: a port is free on the wire until the service
 * it was chosen for binds it, which may be seconds later. A claim whose owner died is taken over.
 */
function reservePort(port: number): boolean {
  const file = path.join(RESERVATIONS, String(port));
  mkdirSync(RESERVATIONS, { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      if (reserved.length === 0) process.once('exit', () => reserved.forEach((f) => rmSync(f, { force: true })));
      reserved.push(file);
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const text = readFileSync(file, 'utf8');
      const owner = Number(text);
      // An empty claim is one being written this instant: someone else's.
      if (text === '' || (Number.isInteger(owner) && owner > 0 && (owner === process.pid || isAlive(owner))))
        return false;
      rmSync(file, { force: true }); // its owner is gone
    }
  }
  return false;
}

/** The kernel's ephemeral port range (Linux), or Linux's default where it cannot be read. */
function ephemeralPorts(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high)) return [low!, high!];
  } catch (error) {
    // Not Linux (no /proc): fall back to Linux's default range below.
    if (!isSystemError(error, 'ENOENT', 'EACCES')) throw error;
  }
  return [32_768, 60_999];
}

/** Binds `port` (0: any) on `host` and closes it again: the port bound, or null when it was taken. */
function listenOnce(port: number, host: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', (e: NodeJS.ErrnoException) =>
      e.code === 'EADDRINUSE' || e.code === 'EACCES' ? resolve(null) : reject(e),
    );
    server.listen(port, host, () => {
      const address = server.address();
      const bound = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(bound));
    });
  });
}
