import type { ProcessTuning } from '@portolan/telemetry';

/**
 * V8 flags the applier runs with. 64 MiB semi-spaces (the default young generation is a quarter of that here): the
 * leader's per-change garbage (render, diff, the apply record's value tree) then dies young instead of being
 * promoted, and the old-space mark-compacts that landed in endpoint changes (20-80 ms at 10k Services) become rare.
 * In `npm run bench -- --only pipeline` at 10k, two runs with the flag gave an endpoint p99 of 26.1 / 26.9 ms,
 * three runs without it, the same hour, 38.5 / 41.4 / 39.1 ms. It costs up to about 100 MiB more resident memory.
 *
 * `--heap-growing-percent=100`: old space may double past the live heap before the next mark-compact. At 10k the
 * leader's live heap is about 140 MiB and V8 let it grow only 11-60 MiB, so a mark-compact (30-70 ms of incremental
 * marking on the leader's thread, then an 8-56 ms pause) ran about every 2 s of endpoint changes and made most of the
 * slow ones (`--trace-gc` beside the bench's slow-round times). With the flag, 6 instead of about 23 in the same
 * stretch; 1,000-round runs at 10k had 15 and 11 rounds over 25 ms against 21-30 in four runs without it. The
 * leader's heap then peaks higher (about 500 MiB before a mark-compact, against about 300).
 */
export const APPLIER_TUNING: ProcessTuning = { flags: ['--max-semi-space-size=64', '--heap-growing-percent=100'], envVar: 'PORTOLAN_APPLIER_RUNTIME' };
