import { availableParallelism } from 'node:os';
import type { ProcessTuning } from '@portolan/telemetry';

/**
 * V8 flags the planner runs with, by the CPUs it may use. On one CPU, `--single-threaded-gc`: the collector's work
 * is done on the planner's own thread. The fold is one thread, so on one core the collector's helper threads only
 * compete with it (hand-offs and waits). Pinned to one core (`taskset -c 0`) at 10k Services, one-endpoint changes
 * planned per CPU second went from 10.3-14.7k to 15.9-18.6k in alternating runs, every run with the flag above every
 * run without; at 1k from 18.6-18.9k to 20.9-21.2k. With two cores or more the helpers run beside the fold, and the
 * default collector is kept: with the flag, the planner's 10k cold start on this two-core machine took twice as
 * long from the last initial message to the first snapshot (6.3 s against 3.0-3.1 s).
 */
export function plannerTuning(cpus: number): ProcessTuning {
  return { flags: cpus <= 1 ? ['--single-threaded-gc'] : [], envVar: 'PORTOLAN_PLANNER_RUNTIME' };
}

/** The planner's tuning on this machine (`os.availableParallelism()`: the CPUs this process may run on). */
export const PLANNER_TUNING: ProcessTuning = plannerTuning(availableParallelism());
