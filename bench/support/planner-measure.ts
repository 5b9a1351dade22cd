// The planner suite's measurement of one world size, in this process or (`main`) as a child process pinned to one
// core: `taskset -c 0 node bench/support/planner-measure.ts <services> <changes> <scratchRounds>` prints the result
// as JSON on stdout and its log lines on stderr; with `<servedEvery> <changedEvery> [1]` after them, one control's
// one-by-one rate (see WorldShape; a final 1: the warm control, see oneByOneWarm).
import { canonicalJson } from '@portolan/desired-state';
import { Planner, planFromScratch } from '@portolan/planner';
import type { KubeWatchEvent } from '@portolan/kube-model';
import { summarize } from '../figure.ts';
import { benchFleet, EventFeed } from './planner-feed.ts';
import { endpointSlice, prng, worldObjects, ENDPOINTS_PER_SLICE } from './world.ts';

const APPLIANCE = 'edge';
/**
 * Random changes after the warm-up pass, before timing: the JIT settles. The pass before them changes every Service
 * once (in shuffled order), so what is timed is the steady state at both sizes. A change that is a Service's first
 * since the world was loaded pays one-time costs a running planner pays once per Service: its keys, built as
 * concatenations at load, are flattened on first comparison (a new string kept per key), and its load-time objects
 * are touched for the first time. Random warm-up changes alone would leave most Services at 10k untouched when
 * timing began, and far fewer at 1k, skewing the ratio between the sizes.
 */
const WARMUP = 1000;
/**
 * Events per plan in the batched figure. The service folds whatever queued while it was busy (group commit, up to 500
 * messages) and plans once per batch; 100 stands for a moderately loaded planner.
 */
export const BATCH = 100;
const config = benchFleet([
  { name: APPLIANCE, driver: 'haproxy', haproxy: { configDir: 'unused', masterSocket: 'unused' } },
]);

/** What one size measured. */
export interface SizeResult {
  /** One-endpoint changes folded and planned per CPU second (each planned on its own, pieces encoded). */
  readonly eventsPerCpuSecond: number;
  /** The same kind of changes folded BATCH at a time and planned once per batch (how the service runs under load). */
  readonly batchedEventsPerCpuSecond: number;
  readonly eventsPerWallSecond: number;
  /** The same events if every one re-planned the world from scratch (planFromScratch), per second. */
  readonly scratchEventsPerSecond: number;
  readonly bytesPerChange: { readonly median: number; readonly p99: number };
  /** Canonical JSON of the whole desired state: what storing a full copy per change would cost. */
  readonly fullCopyBytes: number;
  /**
   * The V8 heap in use after the measurement: after a full collection when the process runs with `--expose-gc` (as
   * the suite's pinned children do; the planner's world and state), else with the garbage not yet collected.
   */
  readonly heapMiB: number;
}

/**
 * Which Services of the world the appliance serves and which ones the changes go to. The suite's two sizes serve and
 * change every Service; its controls take a 10k world and change every tenth Service only (1k, scattered through
 * the world as the 1k world's are through theirs), served alone (`servedEvery` 10: the other Services' Ingresses name
 * an IngressClass of no configured appliance) or among all 10k served.
 */
export interface WorldShape {
  /** Service i is the appliance's when i % servedEvery is 0. */
  readonly servedEvery: number;
  /** Changes go to Service i when i % changedEvery is 0 (a multiple of servedEvery). */
  readonly changedEvery: number;
}

export const EVERY_SERVICE: WorldShape = { servedEvery: 1, changedEvery: 1 };

/**
 * Events are built in chunks of this many, between timed stretches: construction (the watcher's trimming) is not the
 * planner's cost. The service decodes each bus message just before it folds it (PlannerService.foldAndCommit), so
 * it holds one decoded event at a time, not a batch of them. Large chunks would be live objects that every
 * young-generation collection in the timed loop copies, a cost the service never pays; 50 keeps that small while
 * the two cpuUsage calls per chunk stay negligible.
 */
const CHUNK = 50;

/** CPU and wall time of `step` over `total` events built CHUNK at a time by `make` (construction not timed). */
function timed(
  total: number,
  make: () => KubeWatchEvent,
  step: (events: readonly KubeWatchEvent[]) => void,
): { cpuSeconds: number; wallSeconds: number } {
  let cpu = 0;
  let wall = 0;
  for (let k = 0; k < total; k += CHUNK) {
    const events = Array.from({ length: Math.min(CHUNK, total - k) }, make);
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    step(events);
    wall += performance.now() - t0;
    const c = process.cpuUsage(c0);
    cpu += c.user + c.system;
  }
  return { cpuSeconds: cpu / 1e6, wallSeconds: wall / 1000 };
}

/** A loaded, warmed-up planner and the change stream the timed loops draw from. */
interface Prepared {
  readonly planner: Planner;
  /** A one-endpoint change to a Service drawn at random from those the shape changes. */
  readonly change: () => KubeWatchEvent;
  /** The next one-endpoint change to Service `i` (a newer generation of its slice). */
  readonly changeOf: (i: number) => KubeWatchEvent;
  /** A Service drawn at random from those the shape changes. */
  readonly pick: () => number;
}

/** Folds one event and plans it on its own, encoding the pieces (what the untimed and the warm loops do per change). */
function planOne(planner: Planner, e: KubeWatchEvent): void {
  planner.applyEvent(e);
  for (const plan of planner.planDirty()) void plan.pieces;
}

/** Loads a world of `n` Services shaped by `shape`, then (not timed) changes every Service once and makes WARMUP changes. */
function prepare(n: number, shape: WorldShape, log: (line: string) => void): Prepared {
  const feed = new EventFeed();
  const planner = new Planner(config);
  const t = performance.now();
  let objects = 0;
  for (const obj of worldObjects(n, (i) => (i % shape.servedEvery === 0 ? 'haproxy' : 'vtm'))) {
    planner.applyEvent(feed.event(obj));
    objects++;
  }
  planner.planDirty();
  const foldMs = performance.now() - t;
  log(
    `${n} Services (${n * ENDPOINTS_PER_SLICE} endpoints): ${objects} objects folded and planned from empty in ${foldMs.toFixed(0)} ms (${Math.round(objects / (foldMs / 1000))} events/s)`,
  );

  // Every Service of the world is changed once, whichever the timed changes go to, so a control's timed loop starts
  // after as many changes since the load as the full measurement's (the load's garbage is collected in both).
  const rnd = prng(n);
  const step = shape.changedEvery;
  const hot = Math.ceil(n / step);
  let generation = 0;
  const changeOf = (i: number): KubeWatchEvent => feed.event(endpointSlice(i, ++generation), 'MODIFIED');
  const pick = (): number => rnd(hot) * step;
  const change = (): KubeWatchEvent => changeOf(pick());
  const order = shuffled(n, rnd);
  let next = 0;
  const warm = (events: readonly KubeWatchEvent[]): void => {
    for (const e of events) planOne(planner, e);
  };
  timed(n, () => changeOf(order[next++]!), warm);
  timed(WARMUP, change, warm);
  return { planner, change, changeOf, pick };
}

/** `changes` one-endpoint changes, each planned on its own: CPU and wall seconds, and the bytes each snapshot added. */
function oneByOne(
  { planner, change }: Prepared,
  changes: number,
): { cpuSeconds: number; wallSeconds: number; bytes: number[] } {
  const bytes: number[] = [];
  const times = timed(changes, change, (events) => {
    for (const e of events) {
      planner.applyEvent(e);
      for (const plan of planner.planDirty()) {
        let b = 0;
        for (const piece of plan.pieces.values()) b += piece.length;
        bytes.push(b);
      }
    }
  });
  return { ...times, bytes };
}

/**
 * `changes` one-endpoint changes, each planned on its own and each timed alone, right after an untimed change to the
 * same Service: what a change costs when its Service's state is in the CPU's caches (the warm control). Each change
 * is timed by the wall clock (in the pinned child, the core's time): process CPU time read around every change is
 * not usable at this scale (getrusage splits the process's runtime between calls by tick samples, so the untimed
 * changes' time leaks into the timed ones: 45 µs a change measured that way, against 22 µs by the clock).
 */
function oneByOneWarm({ planner, changeOf, pick }: Prepared, changes: number): { seconds: number } {
  let ms = 0;
  for (let k = 0; k < changes; k++) {
    const i = pick();
    planOne(planner, changeOf(i));
    const e = changeOf(i);
    const t0 = performance.now();
    planOne(planner, e);
    ms += performance.now() - t0;
  }
  return { seconds: ms / 1000 };
}

/**
 * One-by-one events per CPU second in a world shaped by `shape` (the suite's controls): the same loop as `measure`,
 * without its batched, full-recompute and size figures; with `warm`, each timed change follows an untimed change to
 * the same Service (oneByOneWarm).
 */
export function measureRate(
  n: number,
  changes: number,
  shape: WorldShape,
  log: (line: string) => void,
  warm = false,
): number {
  const prepared = prepare(n, shape, log);
  const seconds = warm ? oneByOneWarm(prepared, changes).seconds : oneByOne(prepared, changes).cpuSeconds;
  log(
    `${n} Services, ${Math.ceil(n / shape.servedEvery)} served, ${shape.changedEvery === 1 ? 'every Service' : `1 Service in ${shape.changedEvery}`} changed${warm ? ', each change right after another to the same Service' : ''}: ${changes} changes in ${seconds.toFixed(2)} s ${warm ? '(the clock around each timed change)' : 'CPU'}`,
  );
  return changes / seconds;
}

/** Measures one world size (see the planner suite): every Service served and changed. */
export function measure(n: number, changes: number, scratchRounds: number, log: (line: string) => void): SizeResult {
  const prepared = prepare(n, EVERY_SERVICE, log);
  const { planner, change } = prepared;
  const { cpuSeconds, wallSeconds, bytes } = oneByOne(prepared, changes);

  let batchedBytes = 0;
  const { cpuSeconds: batchCpuSeconds } = timed(changes, change, (events) => {
    for (let k = 0; k < events.length; k += BATCH) {
      for (let j = k; j < k + BATCH && j < events.length; j++) planner.applyEvent(events[j]!);
      for (const plan of planner.planDirty()) for (const piece of plan.pieces.values()) batchedBytes += piece.length;
    }
  });

  const scratch: number[] = [];
  let root = '';
  for (let r = 0; r < scratchRounds; r++) {
    const t = performance.now();
    root = planFromScratch(planner.world, config).get(APPLIANCE)!.root;
    scratch.push(performance.now() - t);
  }
  if (root !== planner.rootOf(APPLIANCE)) throw new Error(`incremental and from-scratch plans differ at ${n} Services`);
  const desired = planner.desiredState(APPLIANCE)!;
  const fullCopyBytes = new TextEncoder().encode(canonicalJson(desired)).length;
  const s = summarize(bytes);
  log(
    `${n} Services: ${changes} changes in ${wallSeconds.toFixed(2)} s wall / ${cpuSeconds.toFixed(2)} s CPU; ${Math.round(changes / wallSeconds)} events/s wall; full recompute ${summarize(scratch).median.toFixed(0)} ms; ${bytes.length} snapshots, largest ${Math.max(...bytes)} B`,
  );
  log(
    `${n} Services: ${changes} more changes in batches of ${BATCH}: ${batchCpuSeconds.toFixed(2)} s CPU, ${Math.round(batchedBytes / (changes / BATCH))} B per batch snapshot`,
  );
  const heapMiB = liveHeapMiB();
  log(
    `${n} Services: ${heapMiB.toFixed(0)} MiB of V8 heap in use after the measurement, with ${planner.appliances.length} appliance planned`,
  );
  return {
    eventsPerCpuSecond: changes / cpuSeconds,
    eventsPerWallSecond: changes / wallSeconds,
    batchedEventsPerCpuSecond: changes / batchCpuSeconds,
    scratchEventsPerSecond: 1000 / summarize(scratch).median,
    bytesPerChange: { median: s.median, p99: s.p99 },
    fullCopyBytes,
    heapMiB,
  };
}

/** The V8 heap in use, after a full collection when `gc` is exposed (nothing timed runs after it). */
function liveHeapMiB(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

/** 0 … n−1 in an order drawn from `rnd` (Fisher–Yates). */
function shuffled(n: number, rnd: (m: number) => number): number[] {
  const out = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = rnd(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

if (import.meta.main) {
  const [n, changes, rounds, servedEvery, changedEvery, warm] = process.argv.slice(2).map(Number);
  const log = (line: string): boolean => process.stderr.write(`${line}\n`);
  const result =
    servedEvery === undefined
      ? measure(n!, changes!, rounds!, log)
      : measureRate(n!, changes!, { servedEvery, changedEvery: changedEvery! }, log, warm === 1);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
