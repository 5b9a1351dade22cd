// How the watcher process starts: main.ts (and `portolan watch`) replace themselves, same pid, by a Node with
// memory-oriented V8 flags and a compile cache, so the process that users run is the tuned one (its memory goal).
import path from 'node:path';
import {
  execTuned,
  persistCompileCache,
  tunedExecution as tunedProcess,
  type ProcessTuning,
} from '@portolan/telemetry';

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
export const WATCHER_NODE_FLAGS: readonly string[] = [
  '--max-semi-space-size=4',
  '--max-old-space-size=128',
  '--expose-gc',
];

/** Environment variable marking the tuned process (`tuned`), or opting out of the re-exec (`plain`). */
export const WATCHER_RUNTIME_ENV = 'PORTOLAN_WATCHER_RUNTIME';

const WATCHER_TUNING: ProcessTuning = { flags: WATCHER_NODE_FLAGS, envVar: WATCHER_RUNTIME_ENV };

/** The watcher's entry point (what `portolan watch` execs into). */
export const watcherMainPath = path.join(import.meta.dirname, 'main.ts');

/** Argument vector and environment of the tuned watcher (see `tunedExecution` of @portolan/telemetry). */
export function tunedExecution(
  entry: string,
  args: readonly string[],
  execArgv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): { argv: string[]; env: Record<string, string> } {
  return tunedProcess(WATCHER_TUNING, entry, args, execArgv, env);
}

/** Replaces this process by the tuned watcher running `entry` with `args` (see `execTuned` of @portolan/telemetry). */
export function execTunedWatcher(entry: string, args: readonly string[]): void {
  execTuned(WATCHER_TUNING, entry, args);
}

export { persistCompileCache };
