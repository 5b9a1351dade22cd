import type { Benchmark } from '../figure.ts';
import { busFloor } from './bus-floor.ts';

/** Every benchmark, in the order they run. */
export const benchmarks: readonly Benchmark[] = [busFloor];
