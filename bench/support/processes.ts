// Child processes of a benchmark (the real service entry points) and what the kernel says about them.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import path from 'node:path';

/** Memory and CPU of one process, from /proc. */
export interface ProcSample {
  /** Resident set size now (bytes). */
  readonly rss: number;
  /** Peak resident set size over the process's life (VmHWM, bytes). */
  readonly peakRss: number;
  /** User + system CPU time so far (seconds). */
  readonly cpuSeconds: number;
}

let ticksPerSecond: number | null = null;

/** Reads /proc/<pid>/status and /proc/<pid>/stat; null when the process is gone. */
export function procSample(pid: number): ProcSample | null {
  try {
    ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string): number =>
      Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
    // Fields after the command name (which may contain spaces) start after the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
    return { rss: kb('VmRSS'), peakRss: kb('VmHWM'), cpuSeconds: ticks / ticksPerSecond };
  } catch {
    return null;
  }
}

/** A service process started by a benchmark, its output going to a log file. */
export interface ServiceProcess {
  readonly name: string;
  readonly pid: number;
  readonly child: ChildProcess;
  readonly logFile: string;
  /** Resolves with the exit code (or signal name) once the process has exited. */
  readonly exited: Promise<number | string>;
  isRunning(): boolean;
  /** Sends a signal, then waits up to `graceMs` for the exit before SIGKILL. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<number | string>;
}

/** Starts `node <entry> <args>` with stdout and stderr appended to `<logDir>/<name>.log`. */
export function startService(
  name: string,
  entry: string,
  args: readonly string[],
  logDir: string,
  nodeFlags: readonly string[] = [],
): ServiceProcess {
  const logFile = path.join(logDir, `${name}.log`);
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(process.execPath, [...nodeFlags, entry, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.pipe(log, { end: false });
  child.stderr!.pipe(log, { end: false });
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, sig) => resolve(code ?? sig ?? 'unknown')),
  );
  void exited.then(() => log.end());
  const isRunning = (): boolean => child.exitCode === null && child.signalCode === null;
  return {
    name,
    pid: child.pid!,
    child,
    logFile,
    exited,
    isRunning,
    async stop(signal = 'SIGTERM', graceMs = 10_000) {
      if (!isRunning()) return exited;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
}

/** The last `lines` lines of a log file (for error messages when a benchmark's process misbehaves). */
export function tail(file: string, lines = 20): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Polls `fn` every `everyMs` until it returns a value other than null/undefined/false, or throws after `timeoutMs`. */
export async function waitUntil<T>(
  what: string,
  fn: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  timeoutMs: number,
  everyMs = 20,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== null && v !== undefined && v !== false) return v;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
