// The machine's memory latency by working-set size, for reading the planner suite's 10k ÷ 1k ratio: how long one
// dependent read of a random cache line takes when the lines read are spread over a given size of memory. Run
// pinned by the suite (`taskset -c 0 node bench/support/memory-probe.ts <MiB>…` prints the result as JSON), or
// in-process.

/** Bytes in a cache line: one read per line, so every read is a different line. */
const LINE = 64;
const INTS_PER_LINE = LINE / 4;
/** Reads timed per size. */
const HOPS = 2_000_000;

/** One size's figure: nanoseconds per dependent read over `mib` MiB. */
export interface LatencyPoint {
  readonly mib: number;
  readonly nsPerRead: number;
}

/**
 * A memory of `lines` cache lines whose first int holds the int index of the next line, in one random cycle through
 * every line (Sattolo's shuffle: a single cycle, whatever `random` draws). `random` draws in [0, 1).
 */
export function chaseCycle(lines: number, random: () => number = Math.random): Int32Array {
  const next = new Int32Array(lines);
  for (let i = 0; i < lines; i++) next[i] = i;
  for (let i = lines - 1; i > 0; i--) {
    const j = Math.floor(random() * i);
    const t = next[i]!;
    next[i] = next[j]!;
    next[j] = t;
  }
  const memory = new Int32Array(lines * INTS_PER_LINE);
  for (let i = 0; i < lines; i++) memory[i * INTS_PER_LINE] = next[i]! * INTS_PER_LINE;
  return memory;
}

/**
 * Nanoseconds per read of a pointer chase over `mib` MiB (see chaseCycle): each read depends on the last (no
 * overlap, no prefetch) and lands on a line chosen at random. One untimed pass over every line first faults the
 * pages in.
 */
export function dependentReadNs(mib: number, random: () => number = Math.random): number {
  const lines = Math.floor((mib * 1024 * 1024) / LINE);
  const memory = chaseCycle(lines, random);
  let at = 0;
  for (let i = 0; i < lines; i++) at = memory[at]!;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < HOPS; i++) at = memory[at]!;
  const ns = Number(process.hrtime.bigint() - t0) / HOPS;
  // The chase's end is read so that the loop cannot be dropped; it is always a line start.
  if (at % INTS_PER_LINE !== 0) throw new Error('pointer chase left its cycle');
  return ns;
}

/** The latency curve over the given sizes, smallest first. */
export function latencyCurve(sizesMiB: readonly number[]): LatencyPoint[] {
  return [...sizesMiB].sort((a, b) => a - b).map((mib) => ({ mib, nsPerRead: dependentReadNs(mib) }));
}

if (import.meta.main) {
  process.stdout.write(`${JSON.stringify(latencyCurve(process.argv.slice(2).map(Number)))}\n`);
}
