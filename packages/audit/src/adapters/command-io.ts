import { createInterface } from 'node:readline/promises';
import { progressLine } from '../core/progress-bar.ts';

/** Where a command reads and writes: the process in the CLI, buffers in tests. */
export interface CommandIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  readonly stdinIsTty: boolean;
  readonly stderrIsTty: boolean;
  /** Asks one question on the terminal and returns the answer (only called when stdin is a terminal). */
  ask(question: string): Promise<string>;
  now(): Date;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

/** The process's terminal as a CommandIo. */
export function processIo(): CommandIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdinIsTty: process.stdin.isTTY === true,
    stderrIsTty: process.stderr.isTTY === true,
    ask: async (question) => {
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      try {
        return await rl.question(question);
      } finally {
        rl.close();
      }
    },
    now: () => new Date(),
    env: process.env,
    cwd: process.cwd(),
  };
}

/** A progress bar on stderr, drawn only on a terminal and at most ~10 times a second; `done()` clears it. */
export interface Progress {
  tick(done: number, total: number): void;
  done(): void;
}

/** Creates a progress bar for `label` (a no-op when stderr is not a terminal). */
export function progress(io: CommandIo, label: string): Progress {
  if (!io.stderrIsTty) return { tick: () => {}, done: () => {} };
  let last = 0;
  let drawn = false;
  return {
    tick: (done, total) => {
      const t = Date.now();
      if (t - last < 100 && done < total) return;
      last = t;
      drawn = true;
      io.stderr.write(`\r${progressLine(label, done, total)}`);
    },
    done: () => {
      if (drawn) io.stderr.write('\r\x1b[2K');
    },
  };
}
