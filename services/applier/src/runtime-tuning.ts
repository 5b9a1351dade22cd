import type { ProcessTuning } from '@portolan/telemetry';

/**
 * V8 flags the applier runs with, for short pauses on the leader's endpoint changes.
 *
 * `--max-semi-space-size=64` (MiB): the leader's per-change garbage (render, diff, the apply record's value tree)
 * dies young instead of being promoted, so old-space mark-compacts, which pause the leader's thread in the middle
 * of a change, become rare. It costs some resident memory.
 *
 * `--heap-growing-percent=300`: old space may grow to four times the live heap before the next mark-compact, so a
 * large appliance's leader does not mark-compact every few seconds of steady endpoint changes. The heap this allows
 * stays below the peak a cold start of the same appliance already reaches.
 */
export const APPLIER_TUNING: ProcessTuning = {
  flags: ['--max-semi-space-size=64', '--heap-growing-percent=300'],
  envVar: 'PORTOLAN_APPLIER_RUNTIME',
};
