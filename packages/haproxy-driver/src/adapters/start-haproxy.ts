import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DesiredState } from '@portolan/desired-state';
import type { BundleFile } from '../core/haproxy-bundle.ts';
import { isSystemError } from '@portolan/errors';
import { HaproxyStartError } from '../errors.ts';
import {
  CONFIG_FILE,
  RUNTIME_SOCKET,
  SERVER_STATE_FILE,
  defaultRenderTuning,
  renderHaproxyBundle,
} from '../core/render-haproxy-bundle.ts';
import { HaproxyMasterClient } from './haproxy-master-client.ts';
import { HaproxyRuntimeClient } from './haproxy-runtime-client.ts';
import { EPOCH_FILE, ensureConfigDirs, writeBundleFiles } from './haproxy-config-files.ts';

/** The master's pid file inside the config directory. */
const PID_FILE = 'haproxy.pid';

/** How to start a local HAProxy for Portolan. */
export interface StartHaproxyOptions {
  /** Directory for haproxy.cfg, maps, certificates and the runtime socket (created if missing). */
  readonly configDir: string;
  /** Master CLI socket; default `<configDir>/master.sock`. */
  readonly masterSocket?: string;
  /** Default `haproxy` (from PATH). */
  readonly binary?: string;
  /** Appliance name written into the initial config's ownership comment; default `local`. */
  readonly appliance?: string;
  /** Keep an existing haproxy.cfg instead of writing the empty one (a restart then serves what it served). */
  readonly keepExistingConfig?: boolean;
  /** Leave HAProxy running after this process exits (`portolan up`); its output then goes to `logFile`. */
  readonly detached?: boolean;
  /** Where HAProxy's stdout/stderr go when detached; default `<configDir>/haproxy.log`. */
  readonly logFile?: string;
  readonly startTimeoutMs?: number;
}

/** A running HAProxy master (with its worker). */
export interface RunningHaproxy extends AsyncDisposable {
  readonly pid: number;
  readonly configDir: string;
  readonly configFile: string;
  readonly masterSocket: string;
  readonly runtimeSocket: string;
  /** The last lines HAProxy printed (empty when detached). */
  output(): string;
  /** Stops HAProxy (SIGTERM, then SIGKILL after 5 s) and waits until the master is gone. */
  stop(): Promise<void>;
}

/**
 * Starts `haproxy -W -S <master socket> -f <configDir>/haproxy.cfg` with an empty-but-valid config (global
 * section with the runtime socket and server-state file, defaults, no listeners) and waits until the master
 * reports a worker and the runtime socket answers. Used by tests, `portolan up` and the local stack.
 */
export async function startHaproxy(options: StartHaproxyOptions): Promise<RunningHaproxy> {
  const configDir = path.resolve(options.configDir);
  const masterSocket = path.resolve(options.masterSocket ?? path.join(configDir, 'master.sock'));
  const configFile = path.join(configDir, CONFIG_FILE);
  const runtimeSocket = path.join(configDir, RUNTIME_SOCKET);
  await prepareConfigDir(options, configDir, [masterSocket, runtimeSocket]);
  const args = ['-W', '-S', `${masterSocket},mode,600`, '-p', path.join(configDir, PID_FILE), '-f', configFile];
  const detached = options.detached === true;
  const logFd = detached ? fs.openSync(options.logFile ?? path.join(configDir, 'haproxy.log'), 'a') : null;
  const child = spawn(options.binary ?? 'haproxy', args, {
    cwd: configDir,
    detached,
    stdio: logFd === null ? ['ignore', 'pipe', 'pipe'] : ['ignore', logFd, logFd],
  });
  if (logFd !== null) fs.closeSync(logFd);
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-8_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited = false;
  child.once('exit', () => (exited = true));
  const spawnError = new Promise<never>((_, reject) => child.once('error', reject));
  spawnError.catch(() => undefined);
  if (detached) child.unref();

  const pid = child.pid;
  const stop = async (): Promise<void> => {
    if (pid !== undefined) await stopProcess(pid, () => exited);
  };
  try {
    if (pid === undefined) await spawnError;
    await Promise.race([
      waitReady(masterSocket, runtimeSocket, options.startTimeoutMs ?? 10_000, () => exited),
      spawnError,
    ]);
  } catch (cause) {
    await stop();
    throw new HaproxyStartError(`haproxy did not start: ${output.trim().split('\n').slice(-5).join(' | ')}`, { cause });
  }
  return {
    pid: pid as number,
    configDir,
    configFile,
    masterSocket,
    runtimeSocket,
    output: () => output,
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/**
 * Stops an HAProxy started (possibly detached, by another process) with `startHaproxy` on `configDir`, using the
 * pid file it wrote. Returns false when no such HAProxy was running.
 */
export async function stopHaproxy(configDir: string): Promise<boolean> {
  const pidFile = path.join(path.resolve(configDir), PID_FILE);
  let pid: number;
  try {
    pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
  } catch (e) {
    // No pid file: nothing was started here.
    if (isSystemError(e, 'ENOENT')) return false;
    throw e;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return false;
  await stopProcess(pid, () => false);
  fs.rmSync(pidFile, { force: true });
  return true;
}

/** Checks the socket paths, writes the empty configuration (unless one is kept) and clears stale state. */
async function prepareConfigDir(
  options: StartHaproxyOptions,
  configDir: string,
  sockets: readonly string[],
): Promise<void> {
  const configFile = path.join(configDir, CONFIG_FILE);
  for (const socket of sockets) {
    // sun_path holds 108 bytes: HAProxy would fail with a less helpful message.
    if (Buffer.byteLength(socket) > 100)
      throw new HaproxyStartError(`socket path too long for a unix socket (>100 bytes): ${socket}`);
  }
  await ensureConfigDirs(configDir);
  if (!(options.keepExistingConfig === true && fs.existsSync(configFile))) {
    await writeBundleFiles(configDir, initialBundleFiles(configDir, options.appliance ?? 'local'));
    // A fresh configuration starts a fresh fencing history (epochs come from the store, which may be new too).
    fs.rmSync(path.join(configDir, EPOCH_FILE), { force: true });
  }
  // The state file only bridges one reload; on a cold start its ports would override the config's newer ones.
  fs.writeFileSync(path.join(configDir, SERVER_STATE_FILE), '1\n');
  for (const socket of sockets) fs.rmSync(socket, { force: true });
}

/** The files of the empty configuration: what HAProxy runs before the first apply. */
export function initialBundleFiles(configDir: string, appliance: string): readonly BundleFile[] {
  const empty: DesiredState = {
    appliance,
    driver: 'haproxy',
    virtualServices: [],
    pools: [],
    certificates: [],
    bindings: [],
    conditions: [],
  };
  return renderHaproxyBundle(empty, {
    configDir,
    defaultAddress: '127.0.0.1',
    sizing: { minFreeSlots: 0, slotIncrement: 1 },
    ...defaultRenderTuning,
  }).files;
}

async function waitReady(
  masterSocket: string,
  runtimeSocket: string,
  timeoutMs: number,
  hasExited: () => boolean,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  const master = new HaproxyMasterClient(masterSocket, { timeoutMs: 1_000 });
  for (;;) {
    if (hasExited()) throw new HaproxyStartError('haproxy exited during start-up');
    // Not answering yet is what this loop waits out (bounded by the deadline): any failure means "not ready".
    const status = await master.showProc().catch(() => null);
    if (status !== null && status.workers.length > 0) {
      const runtime = new HaproxyRuntimeClient(runtimeSocket, { timeoutMs: 1_000 });
      const answered = await runtime.command('show info').then(
        () => true,
        () => false,
      );
      runtime.disconnect();
      if (answered) return;
    }
    if (performance.now() > deadline) throw new HaproxyStartError(`not ready within ${timeoutMs} ms`);
    await sleep(20);
  }
}

async function stopProcess(pid: number, hasExited: () => boolean): Promise<void> {
  if (!signal(pid, 'SIGTERM')) return;
  const deadline = performance.now() + 5_000;
  while (!hasExited() && isAlive(pid)) {
    if (performance.now() > deadline) {
      signal(pid, 'SIGKILL');
      await sleep(50);
      return;
    }
    await sleep(20);
  }
}

function signal(pid: number, name: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch (e) {
    // No such process (ESRCH), or one that is not ours to signal (EPERM): either way not a haproxy we run.
    if (isSystemError(e, 'ESRCH', 'EPERM')) return false;
    throw e;
  }
}

function isAlive(pid: number): boolean {
  return signal(pid, 0);
}
