import type { ProcessTuning } from '@portolan/telemetry';

/**
 * V8 flags the applier runs with. 64 MiB semi-spaces (the default young generation is a quarter of that here): the
 * leader's per-change garbage (render, diff, the apply record's value tree) then dies young instead of being
 * promoted, and the old-space mark-compacts that landed in endpoint changes (20-80 ms at 10k Services) become rare.
 * In `npm run bench -- --only pipeline` at 10k, two runs with the flag gave an endpoint p99 of 26.1 / 26.9 ms,
 * three runs without it, the same hour, 38.5 / 41.4 / 39.1 ms. It costs up to about 100 MiB more resident memory.
 */
export const APPLIER_TUNING: ProcessTuning = { flags: ['--max-semi-space-size=64'], envVar: 'PORTOLAN_APPLIER_RUNTIME' };
