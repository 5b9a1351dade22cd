// How a service process starts: its main.ts replaces itself (same pid) by a Node with the service's V8 flags and a
// compile cache, so the process users run is the tuned one whichever launcher started it.
import { flushCompileCache } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A service's runtime: the V8 flags it runs with and the variable that marks the tuned process. */
export interface ProcessTuning {
  readonly flags: readonly string[];
  /** Set to `tuned` in the replacement (so it does not exec again); `plain` opts out of the re-exec. */
  readonly envVar: string;
}

/**
 * Argument vector and environment of the tuned process: the service's flags first so that flags the user gave Node
 * (`process.execArgv`, e.g. `--inspect`) still win; the compile cache spares the TypeScript stripper (~17 MiB of
 * RSS) and recompilation on every start after the first.
 */
export function tunedExecution(
  tuning: ProcessTuning,
  entry: string,
  args: readonly string[],
  execArgv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): { argv: string[]; env: Record<string, string> } {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  out[tuning.envVar] = 'tuned';
  out['NODE_COMPILE_CACHE'] ??= path.join(tmpdir(), 'portolan-node-compile-cache');
  // glibc: two arenas for V8's helper threads, and a fixed mmap threshold so that freed buffers go back to the
  // system instead of raising the threshold and fragmenting the main heap.
  out['MALLOC_ARENA_MAX'] ??= '2';
  out['MALLOC_MMAP_THRESHOLD_'] ??= '131072';
  return { argv: [process.execPath, ...tuning.flags, ...execArgv, entry, ...args], env: out };
}

/**
 * Replaces this process by the tuned one running `entry` with `args` (never returns then). Returns when the process
 * already is the tuned one, when the tuning's variable is `plain`, or when the platform has no `process.execve`
 * (Windows, worker threads): the caller then runs the service in this process.
 */
export function execTuned(tuning: ProcessTuning, entry: string, args: readonly string[]): void {
  const mode = process.env[tuning.envVar];
  if (mode === 'tuned' || mode === 'plain' || typeof process.execve !== 'function') return;
  const { argv, env } = tunedExecution(tuning, entry, args, process.execArgv, process.env);
  try {
    process.execve(process.execPath, argv, env);
  } catch {
    // execve refused (e.g. a sandbox): run untuned rather than not at all.
  }
}

/** Writes the compile cache now: a daemon is rarely stopped cleanly, and Node only writes it at exit. */
export function persistCompileCache(): void {
  try {
    flushCompileCache();
  } catch {
    // No cache (disabled or unwritable): the next start compiles again, nothing else changes.
  }
}
