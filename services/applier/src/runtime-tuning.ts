import type { ProcessTuning } from '@portolan/telemetry';

/**
 * V8 flags the applier runs with. 64 MiB semi-spaces (the default young generation is a quarter of that here): the
 * leader's per-change garbage (render, diff, the apply record's value tree) then dies young instead of being
 * promoted, and the old-space mark-compacts that landed in endpoint changes (20-80 ms at 10k Services) become rare.
 * In `npm run bench -- --only pipeline` at 10k, two runs with the flag gave an endpoint p99 of 26.1 / 26.9 ms,
 * three runs without it, the same hour, 38.5 / 41.4 / 39.1 ms. It costs up to about 100 MiB more resident memory.
 *
 * `--heap-growing-percent=300`: old space may grow to four times the live heap before the next mark-compact. At 10k
 * the leader's live heap is about 140 MiB and V8 let it grow only 11-60 MiB, so a mark-compact (30-70 ms of
 * incremental marking on the leader's thread, then an 8-56 ms pause) ran about every 2 s of endpoint changes and made
 * most of the slow ones (`--trace-gc` beside the bench's slow-round times). 1,000-round runs at 10k: without the flag
 * 21-30 rounds over 25 ms (p99 28.3-41.0 ms, four runs, two of them with GC tracing); with 100 % 15, 11 and 11 (p99 30.7 / 26.2 / 25.2 ms); with
 * 300 % 5 and 9 (p99 20.1 / 22.9 ms). The leader's heap may then reach about 560 MiB between mark-compacts, below
 * the peak its cold start already reaches at 10k (about 1 GiB resident).
 */
export const APPLIER_TUNING: ProcessTuning = {
  flags: ['--max-semi-space-size=64', '--heap-growing-percent=300'],
  envVar: 'PORTOLAN_APPLIER_RUNTIME',
};
