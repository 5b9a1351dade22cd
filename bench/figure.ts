/** One measured figure, as written to the JSON report. */
export interface Figure {
  readonly name: string;
  readonly unit: string;
  /** The median (or the single measured value where a distribution makes no sense). */
  readonly value: number;
  readonly p99?: number;
  /** The goal, printed beside the figure (`≤ 25`, `≥ 20000`). */
  readonly goal?: string;
  /** The same quantity measured in the same run by the naive approach. */
  readonly baseline?: number;
  /** baseline / value for latencies and sizes (how many times better), value / baseline for rates. */
  readonly ratio?: number;
}

/** How a benchmark is run. */
export interface BenchmarkOptions {
  /** Smaller sizes and fewer rounds (about two minutes for every suite together); figure names say so. */
  readonly quick: boolean;
  readonly log: (line: string) => void;
  /** When set, service processes run with `--cpu-prof` and write their profiles under this folder. */
  readonly profileDir?: string;
}

/** A benchmark: given the run mode, measures and returns figures. */
export interface Benchmark {
  readonly name: string;
  run(options: BenchmarkOptions): Promise<readonly Figure[]>;
}

/** A benchmark that failed part-way: the figures it measured before the failure are still reported. */
export class PartialResultError extends Error {
  readonly code = 'BENCH_PARTIAL';
  readonly figures: readonly Figure[];
  constructor(message: string, figures: readonly Figure[], options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PartialResultError';
    this.figures = figures;
  }
}

/** Median and p99 of samples (nearest-rank). */
export function summarize(samples: readonly number[]): { median: number; p99: number } {
  if (samples.length === 0) throw new RangeError('no samples');
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (q: number): number =>
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
  return { median: rank(0.5), p99: rank(0.99) };
}

/** Rounds for display and JSON: 3 significant decimals below 10, integers above 1000. */
export function round(v: number): number {
  if (Math.abs(v) >= 1000) return Math.round(v);
  if (Math.abs(v) >= 10) return Math.round(v * 10) / 10;
  return Math.round(v * 1000) / 1000;
}
