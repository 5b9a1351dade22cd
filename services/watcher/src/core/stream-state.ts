import { backoffDelayMs, watchTimeoutSeconds } from './backoff.ts';

/** Timing knobs of one stream, from the cluster's `watch` config. */
export interface StreamTiming {
  /** No event, bookmark or list progress for this long → the request is abandoned and the kind relisted. */
  readonly stallMs: number;
  /** A healthy stream still relists this often (repairs anything a live stream dropped). */
  readonly relistMs: number;
  /** Watch lifetime bound, randomised 1×–2× per request. */
  readonly watchTimeoutSeconds: number;
  /** How often a kind whose API the server does not serve (its CRD not installed) is looked for again; 30 s. */
  readonly absentRecheckMs?: number;
}

/** Why a list or watch stopped short. Each class has one fixed response (see `advanceStream`). */
export type StreamFailure =
  /** 410 Gone: at watch start, inside the stream, or on a list page (expired continue token). */
  | 'gone'
  /** An undecodable line: an event may be lost, only a relist repairs it. */
  | 'garbled'
  /** Nothing arrived within the stall bound: the watch stalled silently. */
  | 'stalled'
  /** The periodic relist timer fired. */
  | 'relist-due'
  /**
   * The broker changed hands (a stream leader elected, the connection replaced): a message it acknowledged may be
   * gone, so the state is listed and published again.
   */
  | 'broker-fault'
  /**
   * The planner's state of the kind disagrees with this watcher's ledger although both are settled: a message was
   * lost on the way, so the state is listed and published again.
   */
  | 'state-mismatch'
  /** Anything else: 403, 429, 5xx, resets, timeouts. Retried with capped, jittered backoff — never given up. */
  | 'transient';

/** What a stream does next. */
export type StreamStep =
  | { readonly type: 'list' }
  | { readonly type: 'watch'; readonly resourceVersion: string; readonly timeoutSeconds: number }
  | { readonly type: 'wait'; readonly ms: number };

/** Supervision state of one stream. Times are milliseconds on the caller's clock. */
export interface StreamState {
  readonly phase: 'listing' | 'watching' | 'waiting';
  /** Where the next watch starts; null means a (quorum) list comes first. */
  readonly resourceVersion: string | null;
  /** True once a list has completed: the stream's objects are all known. */
  readonly synced: boolean;
  /** Last sign of life from the server: list page, watch opened, event, bookmark, clean end. */
  readonly lastFreshAt: number;
  readonly lastListAt: number;
  /** When the current list or watch request began: a request gets the whole stall bound to show life. */
  readonly requestStartedAt: number;
  /** Consecutive transient failures (drives the backoff). */
  readonly failures: number;
}

/** Input to the stream state machine. */
export type StreamInput =
  | { readonly type: 'listed'; readonly resourceVersion: string }
  /** The server does not serve the kind (404 on its list): it has no objects, and is looked for again later. */
  | { readonly type: 'absent' }
  | { readonly type: 'alive' }
  /** The stream was held back by the bus (backpressure): the stall bound starts again, freshness does not. */
  | { readonly type: 'resumed' }
  | { readonly type: 'progressed'; readonly resourceVersion: string }
  | { readonly type: 'watch-ended' }
  | { readonly type: 'failed'; readonly failure: StreamFailure }
  | { readonly type: 'waited' };

/** A new stream: it lists first. */
export function initialStreamState(now: number): StreamState {
  return {
    phase: 'listing',
    resourceVersion: null,
    synced: false,
    lastFreshAt: now,
    lastListAt: now,
    requestStartedAt: now,
    failures: 0,
  };
}

/**
 * The supervisor's transition: next state and next step. Rules: a 410, a garbled line, a stall or the relist timer
 * each cost exactly one list (never `resourceVersion=0`: lists are quorum reads); a clean watch end re-watches from
 * the last resourceVersion with no list; anything else backs off (≤ 30 s, jittered) and resumes where it was —
 * the watch from its resourceVersion, or the list. `random` is in [0, 1).
 */
export function advanceStream(
  state: StreamState,
  input: StreamInput,
  timing: StreamTiming,
  now: number,
  random: number,
): { state: StreamState; step: StreamStep | null } {
  switch (input.type) {
    case 'listed': {
      const next: StreamState = {
        ...state,
        resourceVersion: input.resourceVersion,
        synced: true,
        lastFreshAt: now,
        lastListAt: now,
        failures: 0,
      };
      return watchFrom(next, input.resourceVersion, timing, now, random);
    }
    case 'absent':
      return {
        state: {
          ...state,
          phase: 'waiting',
          resourceVersion: null,
          synced: true,
          lastFreshAt: now,
          lastListAt: now,
          failures: 0,
        },
        step: { type: 'wait', ms: timing.absentRecheckMs ?? 30_000 },
      };
    case 'alive':
      return { state: { ...state, lastFreshAt: now }, step: null };
    case 'resumed':
      return { state: { ...state, requestStartedAt: now }, step: null };
    case 'progressed':
      return { state: { ...state, resourceVersion: input.resourceVersion, lastFreshAt: now, failures: 0 }, step: null };
    case 'watch-ended': {
      const fresh = { ...state, lastFreshAt: now };
      if (state.resourceVersion === null || now - state.lastListAt >= timing.relistMs) return list(fresh, now);
      return watchFrom(fresh, state.resourceVersion, timing, now, random);
    }
    case 'failed':
      if (input.failure === 'transient') {
        const failures = state.failures + 1;
        return {
          state: { ...state, phase: 'waiting', failures },
          step: { type: 'wait', ms: backoffDelayMs(failures, random) },
        };
      }
      return list({ ...state, resourceVersion: null }, now);
    case 'waited':
      if (state.resourceVersion === null) return list(state, now);
      return watchFrom(state, state.resourceVersion, timing, now, random);
  }
}

function list(state: StreamState, now: number): { state: StreamState; step: StreamStep } {
  return { state: { ...state, phase: 'listing', requestStartedAt: now }, step: { type: 'list' } };
}

function watchFrom(
  state: StreamState,
  resourceVersion: string,
  timing: StreamTiming,
  now: number,
  random: number,
): { state: StreamState; step: StreamStep } {
  return {
    state: { ...state, phase: 'watching', requestStartedAt: now },
    step: { type: 'watch', resourceVersion, timeoutSeconds: watchTimeoutSeconds(timing.watchTimeoutSeconds, random) },
  };
}

/**
 * What the supervisor's clock says about a stream at `now`: a request that has shown no sign of life within the
 * stall bound is abandoned; a watch past the relist period is ended for a relist. A waiting stream is left alone.
 */
export function checkStreamClock(
  state: StreamState,
  timing: StreamTiming,
  now: number,
): 'ok' | 'stalled' | 'relist-due' {
  if (state.phase === 'waiting') return 'ok';
  if (now - Math.max(state.lastFreshAt, state.requestStartedAt) > timing.stallMs) return 'stalled';
  if (state.phase === 'watching' && now - state.lastListAt >= timing.relistMs) return 'relist-due';
  return 'ok';
}
