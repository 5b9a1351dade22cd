import { getHeapStatistics } from 'node:v8';
import { heapBudgetStep, type HeapBudgetState } from '../core/index.ts';

/** The heap governor of a running watcher. */
export interface HeapGovernor {
  /** Collections the governor asked for so far. */
  readonly collections: number;
  stop(): void;
}

/**
 * Every `intervalMs`, reads the heap in use and runs a full collection once it grew `slackBytes` above its floor
 * (core/heap-budget.ts). Needs `globalThis.gc`, which only the tuned runtime exposes (`--expose-gc` in
 * runtime-tuning.ts); elsewhere (tests, `PORTOLAN_WATCHER_RUNTIME=plain`) it returns null and V8 decides alone.
 */
export function startHeapGovernor(options: {
  slackBytes: number;
  intervalMs: number;
  onCollect?: (freedBytes: number) => void;
}): HeapGovernor | null {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc !== 'function') return null;
  let state: HeapBudgetState = { floorBytes: getHeapStatistics().used_heap_size };
  let collections = 0;
  const timer = setInterval(() => {
    const used = getHeapStatistics().used_heap_size;
    const step = heapBudgetStep(state, used, options.slackBytes);
    if (!step.collect) {
      state = step.state;
      return;
    }
    gc();
    collections++;
    state = { floorBytes: getHeapStatistics().used_heap_size };
    options.onCollect?.(used - state.floorBytes);
  }, options.intervalMs).unref();
  return {
    get collections() {
      return collections;
    },
    stop: () => clearInterval(timer),
  };
}
