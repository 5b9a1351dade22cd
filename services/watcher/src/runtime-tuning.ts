// How the watcher process starts: main.ts (and `portolan watch`) replace themselves, same pid, by a Node with
// memory-oriented V8 flags and a compile cache, so the process that users run is the tuned one (issue 4: RSS goal).
import { flushCompileCache } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * V8 flags the watcher runs with (measured with bench/watcher-throughput.ts, 10k Services and 100k endpoints).
 * The default young generation (here up to 2 × 64 MiB semi-spaces) is sized for allocation throughput, not for a
 * daemon: it alone kept ~128 MiB resident. With the heap governor 4 MiB semi-spaces peak as low as 2 MiB ones and
 * cost less CPU (fewer scavenges, less promoted); 8 MiB ones peaked ~8 MiB higher. The live heap at
 * 20k objects is ~28 MiB (modules ~23 MiB, the ledger ~0.2 KiB per object); 128 MiB of old space is a ceiling
 * far above it, not a target: the heap governor (adapters/heap-governor.ts, which needs `--expose-gc`) keeps
 * the garbage above the live heap under 6 MiB, where V8 alone let it reach 20-40 MiB during a sync. A much
 * larger cluster needs a higher ceiling: flags given to Node before main.ts (`node --max-old-space-size=512
 * main.ts`) come after these and win.
 */
export const WATCHER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=4', '--max-old-space-size=128', '--expose-gc'];

/** Environment variable marking the tuned process (`tuned`), or opting out of the re-exec (`plain`). */
export const WATCHER_RUNTIME_ENV = 'PORTOLAN_WATCHER_RUNTIME';

/** The watcher's entry point (what `portolan watch` execs into). */
export const watcherMainPath = path.join(import.meta.dirname, 'main.ts');

/**
 * Argument vector and environment of the tuned process: our flags first so that flags the user gave Node
 * (`process.execArgv`, e.g. `--inspect`) still win; the compile cache spares the TypeScript stripper (~17 MiB
 * of RSS) and recompilation on every start after the first.
 */
export function tunedExecution(entry: string, args: readonly string[], execArgv: readonly string[], env: Readonly<Record<string, string | undefined>>): { argv: string[]; env: Record<string, string> } {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  out[WATCHER_RUNTIME_ENV] = 'tuned';
  out['NODE_COMPILE_CACHE'] ??= path.join(tmpdir(), 'portolan-node-compile-cache');
  // glibc: two arenas for V8's helper threads, and a fixed mmap threshold so that freed list-page buffers go back
  // to the system instead of raising the threshold and fragmenting the main heap.
  out['MALLOC_ARENA_MAX'] ??= '2';
  out['MALLOC_MMAP_THRESHOLD_'] ??= '131072';
  return { argv: [process.execPath, ...WATCHER_NODE_FLAGS, ...execArgv, entry, ...args], env: out };
}

/**
 * Replaces this process by the tuned watcher running `entry` with `args` (never returns then). Returns when the
 * process already is the tuned one, when `PORTOLAN_WATCHER_RUNTIME=plain` opts out, or when the platform has no
 * `process.execve` (Windows, worker threads): the caller then runs the watcher in this process.
 */
export function execTunedWatcher(entry: string, args: readonly string[]): void {
  const mode = process.env[WATCHER_RUNTIME_ENV];
  if (mode === 'tuned' || mode === 'plain' || typeof process.execve !== 'function') return;
  const { argv, env } = tunedExecution(entry, args, process.execArgv, process.env);
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
