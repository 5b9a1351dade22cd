import type { ProcessTuning } from '@portolan/telemetry';

/**
 * V8 flags the planner runs with. `--single-threaded-gc`: the collector's work is done on the planner's own thread
 * instead of being shared with helper threads. The fold is one thread, so the helpers only add CPU (hand-offs and
 * waits) and, on a single core (a CPU limit of 1, or the benchmark's `taskset -c 0`), they compete with it. Pinned to
 * one core at 10k Services, one-endpoint changes planned per CPU second went from 10.3-14.7k to 15.9-18.6k in
 * alternating runs (`bench/support/planner-measure.ts`, and the same loop in a scratch script), every run with the
 * flag above every run without; at 1k from 18.6-18.9k to 20.9-21.2k. Larger or smaller semi-spaces did not help.
 */
export const PLANNER_TUNING: ProcessTuning = { flags: ['--single-threaded-gc'], envVar: 'PORTOLAN_PLANNER_RUNTIME' };
