import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Benchmark, Figure } from '../figure.ts';
import { plannerTuning } from '@portolan/planner';
import { latencyCurve, type LatencyPoint } from '../support/memory-probe.ts';
import {
  BATCH,
  EVERY_SERVICE,
  measure,
  measureRate,
  type SizeResult,
  type WorldShape,
} from '../support/planner-measure.ts';

/**
 * Rounds in a full run: each measures every size once, in a fresh process per size, so both sizes of a round meet the
 * same host conditions. Runs of one size vary by ±20 % here: each size's figure is its run with the median one-by-one
 * rate, and the flatness figure is the median of the rounds' own ratios.
 */
const REPEATS = 5;

const measureScript = path.resolve(import.meta.dirname, '..', 'support', 'planner-measure.ts');
const probeScript = path.resolve(import.meta.dirname, '..', 'support', 'memory-probe.ts');

/** Working sets of the memory probe's curve (MiB), besides the two planner heaps: its log line shows where caches end. */
const PROBE_CURVE = [1, 4, 8, 16, 32, 64, 128, 256];
/** The curve's working set reported as a figure beside the heaps' (MiB): within the caches of most server cores. */
const PROBE_SMALL = 8;

/** Whether `taskset` runs here: asked once, not before each of a run's measurements. */
let hasTasksetAnswer: Promise<boolean> | undefined;
const tasksetRuns = (): Promise<boolean> =>
  (hasTasksetAnswer ??= promisify(execFile)('taskset', ['-V']).then(
    () => true,
    () => false,
  ));

/**
 * The controls, measured at the larger size in every round beside both sizes: 1k Services changed (every tenth, so
 * scattered through the world), (a) alone served in a world of 10k, (b) among 10k served. Each one's rate over the
 * same round's 1k rate says how much of the 10k ÷ 1k gap comes from the world's size, from the appliance's size with
 * the same hot Services, and (the rest) from spreading the changes over ten times as many Services.
 */
const CONTROLS: readonly { readonly shape: (step: number) => WorldShape; readonly what: string }[] = [
  {
    shape: (step) => ({ servedEvery: step, changedEvery: step }),
    what: 'a larger world, the same number of Services served and changed',
  },
  { shape: (step) => ({ servedEvery: 1, changedEvery: step }), what: 'more Services served, the same number changed' },
];

/**
 * One measurement in a child process pinned to one core (`taskset -c 0`), so "events/s on one core" is literal:
 * the planner's thread, its garbage-collector and compiler threads all share that core, and wall time is its CPU
 * time. The child runs with the V8 flags the planner service takes on one CPU (`plannerTuning(1)`). Without
 * taskset (not Linux), `local` runs it in this process; the figures then say so.
 */
async function pinned<T>(
  args: readonly number[],
  local: () => T,
  log: (line: string) => void,
  script = measureScript,
): Promise<{ result: T; pinned: boolean }> {
  if (!(await tasksetRuns())) return { result: local(), pinned: false };
  // `--expose-gc` lets a measurement collect garbage before reading its heap size, after everything it times.
  const { stdout, stderr } = await promisify(execFile)(
    'taskset',
    ['-c', '0', process.execPath, ...plannerTuning(1).flags, '--expose-gc', script, ...args.map(String)],
    { maxBuffer: 1 << 24 },
  );
  for (const line of stderr.split('\n')) if (line !== '') log(line);
  return { result: JSON.parse(stdout) as T, pinned: true };
}

const measurePinned = (
  n: number,
  changes: number,
  rounds: number,
  log: (line: string) => void,
): Promise<{ result: SizeResult; pinned: boolean }> =>
  pinned([n, changes, rounds], () => measure(n, changes, rounds, log), log);

const controlPinned = (
  n: number,
  changes: number,
  shape: WorldShape,
  log: (line: string) => void,
): Promise<{ result: number; pinned: boolean }> =>
  pinned([n, changes, 0, shape.servedEvery, shape.changedEvery], () => measureRate(n, changes, shape, log), log);

/**
 * The warm control, at each size: every Service served and changed, each timed change right after an untimed change
 * to the same Service, so the state it reads is in the CPU's caches. Its 10k ÷ 1k ratio is the planner's work per
 * change with memory latency taken out; the cold rate over the warm one is what fetching the changed Service's state
 * from memory costs.
 */
const warmPinned = (
  n: number,
  changes: number,
  log: (line: string) => void,
): Promise<{ result: number; pinned: boolean }> =>
  pinned(
    [n, changes, 0, EVERY_SERVICE.servedEvery, EVERY_SERVICE.changedEvery, 1],
    () => measureRate(n, changes, EVERY_SERVICE, log, true),
    log,
  );

/**
 * The machine's side of the 10k ÷ 1k ratio: one dependent read of a random cache line, over working sets from 1 MiB
 * up and over memories the size of the two planner heaps, on the core the planner measurements ran on. Where the
 * curve jumps is the cache one core gets; a change's reads of its Service's state cost what the curve says beyond
 * it, at both sizes, unless that state was touched recently enough to still be cached (the warm control).
 */
const probePinned = (
  sizesMiB: readonly number[],
  log: (line: string) => void,
): Promise<{ result: LatencyPoint[]; pinned: boolean }> =>
  pinned(sizesMiB, () => latencyCurve(sizesMiB), log, probeScript);

/**
 * The planner's pure core (no bus, no database): events/s for one-endpoint changes on 10-endpoint slices at 1k and
 * 10k Services, each change planned on its own (the worst case: the service batches), against a same-run full
 * recompute (planFromScratch); the same changes folded in batches and planned once per batch (labelled apart: the
 * service's group commit under load); and the snapshot bytes each change adds against storing a full copy.
 */
export const plannerBench: Benchmark = {
  name: 'planner',
  async run({ quick, log }) {
    const sizes = quick ? [1000, 3000] : [1000, 10_000];
    const changes = quick ? 4000 : 20_000;
    const scratchRounds = quick ? 1 : 5;
    const tag = quick ? ' (quick)' : '';
    const figures: Figure[] = [];
    const runs = new Map<number, { result: SizeResult; pinned: boolean }[]>(sizes.map((n) => [n, []]));
    const step = sizes[1]! / sizes[0]!;
    const controls = CONTROLS.map(({ shape, what }) => ({ shape: shape(step), what, rates: [] as number[] }));
    const warm = new Map<number, number[]>(sizes.map((n) => [n, []]));
    for (let k = 0; k < (quick ? 1 : REPEATS); k++) {
      for (const n of sizes) runs.get(n)!.push(await measurePinned(n, changes, scratchRounds, log));
      for (const c of controls) c.rates.push((await controlPinned(sizes[1]!, changes, c.shape, log)).result);
      for (const n of sizes) warm.get(n)!.push((await warmPinned(n, changes, log)).result);
    }
    for (const n of sizes) {
      const sorted = [...runs.get(n)!].sort((a, b) => a.result.eventsPerCpuSecond - b.result.eventsPerCpuSecond);
      if (sorted.length > 1)
        log(
          `${n} Services: one-by-one rates of ${sorted.length} runs ${sorted.map((x) => Math.round(x.result.eventsPerCpuSecond)).join(' / ')} events/s; batched ${sorted.map((x) => Math.round(x.result.batchedEventsPerCpuSecond)).join(' / ')}`,
        );
      const { result: r, pinned } = sorted[Math.floor(sorted.length / 2)]!;
      const core = pinned ? 'on one core (process pinned with taskset)' : 'per CPU second (not pinned: no taskset)';
      const at = `@${label(n)} Services${tag}`;
      figures.push(
        {
          name: `one-endpoint changes planned ${at} (${core}; baseline: full recompute)`,
          unit: 'events/s',
          value: r.eventsPerCpuSecond,
          goal: '≥ 20000',
          baseline: r.scratchEventsPerSecond,
          ratio: r.eventsPerCpuSecond / r.scratchEventsPerSecond,
        },
        {
          name: `one-endpoint changes planned in batches of ${BATCH} ${at} (${core}; one snapshot per batch, as the service commits under load)`,
          unit: 'events/s',
          value: r.batchedEventsPerCpuSecond,
          baseline: r.eventsPerCpuSecond,
          ratio: r.batchedEventsPerCpuSecond / r.eventsPerCpuSecond,
        },
        {
          name: `bytes stored per one-endpoint change ${at} (baseline: full copy)`,
          unit: 'B',
          value: r.bytesPerChange.median,
          p99: r.bytesPerChange.p99,
          goal: '≤ 4096',
          baseline: r.fullCopyBytes,
          ratio: r.fullCopyBytes / r.bytesPerChange.median,
        },
      );
    }
    const [small, large] = sizes.map((n) => runs.get(n)!);
    if (small !== undefined && large !== undefined) {
      const ratios = small
        .map((s, k) => large[k]!.result.eventsPerCpuSecond / s.result.eventsPerCpuSecond)
        .sort((a, b) => a - b);
      log(
        `events/s at ${label(sizes[1]!)} ÷ at ${label(sizes[0]!)} Services, per round: ${ratios.map((x) => x.toFixed(3)).join(' / ')}`,
      );
      figures.push({
        name: `events/s at ${label(sizes[1]!)} ÷ at ${label(sizes[0]!)} Services${tag} (median of rounds measuring both sizes)`,
        unit: 'ratio',
        value: median(ratios),
        goal: '≈ 1 (flat)',
      });
      for (const { shape, what, rates } of controls) {
        const changed = sizes[1]! / shape.changedEvery;
        const perRound = rates.map((rate, k) => rate / small[k]!.result.eventsPerCpuSecond).sort((a, b) => a - b);
        log(
          `control (${what}): ${rates.map(Math.round).join(' / ')} events/s; ÷ the round's ${label(sizes[0]!)} rate ${perRound.map((x) => x.toFixed(3)).join(' / ')}`,
        );
        figures.push({
          name: `control${tag}: events/s with ${label(sizes[1]! / shape.servedEvery)} of ${label(sizes[1]!)} Services served and ${label(changed)} of them changed ÷ at ${label(sizes[0]!)} Services (${what}; median of rounds)`,
          unit: 'ratio',
          value: median(perRound),
        });
      }
      for (const n of sizes) {
        const rates = warm.get(n)!;
        const cold = runs.get(n)!.map((r) => r.result.eventsPerCpuSecond);
        const overCold = rates.map((rate, k) => rate / cold[k]!).sort((a, b) => a - b);
        const sorted = [...rates].sort((a, b) => a - b);
        log(
          `warm control @${label(n)}: ${sorted.map(Math.round).join(' / ')} events/s; ÷ the round's rate without ${overCold.map((x) => x.toFixed(3)).join(' / ')}`,
        );
        figures.push({
          name: `warm control @${label(n)} Services${tag}: one-endpoint changes planned, each right after an untimed change to the same Service (its state in cache; baseline: the rate without, ratio: median of rounds)`,
          unit: 'events/s',
          value: median(sorted),
          baseline: median([...cold].sort((a, b) => a - b)),
          ratio: median(overCold),
        });
      }
      const [warmSmall, warmLarge] = sizes.map((n) => warm.get(n)!);
      const warmRatios = warmSmall!.map((s, k) => warmLarge![k]! / s).sort((a, b) => a - b);
      log(
        `warm control: events/s at ${label(sizes[1]!)} ÷ at ${label(sizes[0]!)} Services, per round: ${warmRatios.map((x) => x.toFixed(3)).join(' / ')}`,
      );
      figures.push({
        name: `warm control${tag}: events/s at ${label(sizes[1]!)} ÷ at ${label(sizes[0]!)} Services with the changed Service's state in cache (median of rounds)`,
        unit: 'ratio',
        value: median(warmRatios),
        goal: '≈ 1 (flat)',
      });
      figures.push(...(await memoryFigures(sizes, runs, tag, log)));
    }
    return figures;
  },
};

/**
 * The memory probe's figures: a random read within a small working set, and over memories the size of the two
 * planner heaps (each size's median run), the larger against the smaller. Its curve goes to the log.
 */
async function memoryFigures(
  sizes: readonly number[],
  runs: ReadonlyMap<number, readonly { result: SizeResult }[]>,
  tag: string,
  log: (line: string) => void,
): Promise<Figure[]> {
  const heaps = sizes.map((n) => {
    const heapsMiB = runs
      .get(n)!
      .map((r) => r.result.heapMiB)
      .sort((a, b) => a - b);
    return Math.ceil(median(heapsMiB));
  });
  const { result: points } = await probePinned([...new Set([...PROBE_CURVE, ...heaps])], log);
  const at = (mib: number): number => points.find((p) => p.mib === mib)!.nsPerRead;
  log(
    `memory probe, one dependent read of a random line over a working set: ${points.map((p) => `${p.mib} MiB ${p.nsPerRead.toFixed(1)} ns`).join(' / ')}`,
  );
  const [small, large] = heaps as [number, number];
  return [
    {
      name: `memory${tag}: a dependent read of a random cache line within ${PROBE_SMALL} MiB`,
      unit: 'ns',
      value: at(PROBE_SMALL),
    },
    {
      name: `memory${tag}: the same read over ${large} MiB, the size of the ${label(sizes[1]!)} planner's heap (baseline: over ${small} MiB, the ${label(sizes[0]!)} one's; ratio: what a change made only of such reads would give as its ${label(sizes[1]!)} ÷ ${label(sizes[0]!)} rate)`,
      unit: 'ns',
      value: at(large),
      baseline: at(small),
      ratio: at(small) / at(large),
    },
  ];
}

const label = (n: number): string => `${n / 1000}k`;

/** The middle of an ascending list (the upper middle for an even length). */
const median = (sorted: readonly number[]): number => sorted[Math.floor(sorted.length / 2)]!;
