import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { StackServiceError } from '../errors.ts';
import {
  isAlive,
  isPortOpen,
  logTail,
  readPid,
  signalUnlessGone,
  spawnDaemon,
  stopPid,
  waitFor,
} from '../process-control.ts';

/** What `status` reports for one service. */
export interface ServiceStatus {
  readonly name: string;
  readonly running: boolean;
  readonly healthy: boolean;
  readonly pid: number | null;
  readonly port: number;
  readonly detail: string;
}

/** One service of the local stack: idempotent start, stop and status. */
export interface StackService {
  readonly name: string;
  readonly port: number;
  start(): Promise<void>;
  stop(): Promise<void>;
  status(): Promise<ServiceStatus>;
}

/** How to run one daemon. */
export interface DaemonSpec {
  readonly name: string;
  readonly port: number;
  /** The address it listens on (default 127.0.0.1): where a port already taken is looked for. */
  readonly host?: string;
  /** Folder for this service's data, log and pid file. */
  readonly dir: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly healthy: () => Promise<boolean>;
  /** Runs before the first start (data directory set-up). */
  readonly prepare?: () => Promise<void> | void;
  /** Runs once healthy (create database, migrate...). */
  readonly afterStart?: () => Promise<void>;
  readonly runAs?: { uid: number; gid: number };
  readonly startTimeoutMs?: number;
  readonly stopSignal?: NodeJS.Signals;
  /** Variables added to the daemon's environment (it inherits the rest from this process). */
  readonly env?: Readonly<Record<string, string>>;
}

/** A StackService for a plain daemon that stays in the foreground of its own detached process. */
export function daemonService(spec: DaemonSpec): StackService {
  const pidFile = path.join(spec.dir, `${spec.name}.pid`);
  const logFile = path.join(spec.dir, `${spec.name}.log`);
  const ownPid = (): number | null => {
    const pid = readPid(pidFile);
    return pid !== null && isAlive(pid) ? pid : null;
  };
  return {
    name: spec.name,
    port: spec.port,
    start: () => startDaemon(spec, pidFile, logFile, ownPid),
    async stop() {
      const pid = ownPid();
      if (pid !== null) {
        if (spec.stopSignal !== undefined) {
          signalUnlessGone(pid, spec.stopSignal);
        }
        await stopPid(pid);
      }
      rmSync(pidFile, { force: true });
    },
    async status() {
      const pid = ownPid();
      const healthy = pid !== null && (await spec.healthy());
      return {
        name: spec.name,
        running: pid !== null,
        healthy,
        pid,
        port: spec.port,
        detail: pid === null ? 'stopped' : healthy ? 'ok' : 'running but not answering',
      };
    },
  };
}

/** Starts the daemon unless our own copy already runs healthy; waits for health, then runs `afterStart`. */
async function startDaemon(spec: DaemonSpec, pidFile: string, logFile: string, ownPid: () => number | null) {
  const fail = (code: StackServiceError['code'], message: string): StackServiceError =>
    new StackServiceError(code, spec.name, `${message}\n  last lines of ${logFile}:\n${logTail(logFile)}`);
  mkdirSync(spec.dir, { recursive: true });
  const running = ownPid();
  if (running !== null && (await spec.healthy())) {
    await spec.afterStart?.();
    return;
  }
  const host = spec.host ?? '127.0.0.1';
  if (running === null && (await isPortOpen(spec.port, host))) {
    throw new StackServiceError(
      'STACK_PORT_TAKEN',
      spec.name,
      `port ${spec.port} on ${host} is already taken by another process; stop it or choose another port (see PORTOLAN_*_PORT)`,
    );
  }
  if (running === null) {
    await spec.prepare?.();
    const env = spec.env === undefined ? {} : { env: spec.env };
    const pid = spawnDaemon(spec.command, spec.args, logFile, { ...spec.runAs, ...env });
    writeFileSync(pidFile, `${pid}\n`);
  }
  const timeoutMs = spec.startTimeoutMs ?? 30_000;
  const ok = await waitFor(async () => ownPid() === null || (await spec.healthy()), timeoutMs, 100);
  if (ownPid() === null) throw fail('STACK_START_FAILED', `${spec.command} exited during start`);
  // One healthy answer is enough: probing again here failed starts on a loaded machine (a probe that took over its
  // second) that had just been seen healthy.
  if (!ok) throw fail('STACK_START_FAILED', `not healthy after ${timeoutMs / 1000}s`);
  await spec.afterStart?.();
}
