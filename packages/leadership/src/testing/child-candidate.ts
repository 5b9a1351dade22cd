import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';

/** One JSON line printed by candidate-process.ts. */
export interface CandidateLine {
  readonly type: string;
  readonly at: number;
  readonly epoch?: number;
  readonly reason?: string;
  readonly [key: string]: unknown;
}

/** A candidate child process and the lines it printed so far. */
export interface ChildCandidate {
  readonly child: ChildProcess;
  readonly lines: CandidateLine[];
  /** Resolves with the first line (already printed or future) matching `predicate`, or rejects after `timeoutMs`. */
  waitFor(predicate: (l: CandidateLine) => boolean, timeoutMs: number): Promise<CandidateLine>;
  kill(signal?: NodeJS.Signals): void;
  exited: Promise<void>;
}

/** Starts candidate-process.ts under the same Node binary (tests must kill it in `finally`). */
export function startChildCandidate(args: Record<string, string>): ChildCandidate {
  const script = path.join(import.meta.dirname, 'candidate-process.ts');
  const child = spawn(process.execPath, [script, ...Object.entries(args).flatMap(([k, v]) => [`--${k}`, v])], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: CandidateLine[] = [];
  const listeners = new Set<() => void>();
  createInterface({ input: child.stdout! }).on('line', (text) => {
    try {
      lines.push(JSON.parse(text) as CandidateLine);
    } catch (e) {
      // A line that is not JSON (a stray runtime warning) is not an event of the candidate.
      if (e instanceof SyntaxError) return;
      throw e;
    }
    for (const l of listeners) l();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    lines,
    exited,
    kill: (signal = 'SIGKILL') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
    waitFor: (predicate, timeoutMs) =>
      new Promise((resolve, reject) => {
        const check = (): boolean => {
          const hit = lines.find(predicate);
          if (hit === undefined) return false;
          cleanup();
          resolve(hit);
          return true;
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no matching line within ${timeoutMs} ms; saw ${JSON.stringify(lines)}`));
        }, timeoutMs);
        const cleanup = (): void => {
          clearTimeout(timer);
          listeners.delete(listener);
        };
        const listener = (): void => void check();
        listeners.add(listener);
        check();
      }),
  };
}
