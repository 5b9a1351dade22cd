import type { Benchmark } from '../figure.ts';
import { busFloor } from './bus-floor.ts';
import { emulatorsBench } from './emulators.ts';
import { failoverBench } from './failover.ts';
import { haFailoverBench } from './ha-failover.ts';
import { pipelineBench } from './pipeline.ts';
import { plannerBench } from './planner.ts';
import { soakBench } from './soak.ts';

/** Every benchmark, in the order they run. */
export const benchmarks: readonly Benchmark[] = [
  busFloor,
  plannerBench,
  pipelineBench,
  failoverBench,
  haFailoverBench,
  emulatorsBench,
  soakBench,
];
