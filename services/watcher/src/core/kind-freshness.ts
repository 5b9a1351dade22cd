import type { StreamState } from './stream-state.ts';
import type { WatchedKind } from './watched-kinds.ts';

/** How fresh one kind is: the basis of /readyz, the heartbeat and `portolan_watcher_last_event_age_seconds`. */
export interface KindFreshness {
  readonly kind: WatchedKind;
  /** Age of the oldest stream's last sign of life (event, bookmark, list page, clean end). */
  readonly ageMs: number;
  /** Every stream of the kind has completed a list. */
  readonly synced: boolean;
  /** Unsynced, or silent past the stall bound: the planner must not trust this kind as current. */
  readonly stale: boolean;
  readonly generation: bigint;
}

/**
 * Freshness of a kind from its streams' states at `now`. A quiet cluster stays fresh because bookmarks and clean
 * watch ends count as life; only silence past `stallMs` (or no completed list) makes a kind stale.
 */
export function kindFreshness(
  kind: WatchedKind,
  streams: readonly StreamState[],
  generation: bigint,
  stallMs: number,
  now: number,
): KindFreshness {
  const ageMs = streams.reduce((age, s) => Math.max(age, now - s.lastFreshAt), 0);
  const synced = streams.length > 0 && streams.every((s) => s.synced);
  return { kind, ageMs, synced, stale: !synced || ageMs > stallMs, generation };
}

/** /readyz verdict: ready only when every kind is synced and fresh; otherwise the reasons, one per kind. */
export function readiness(kinds: readonly KindFreshness[]): { ok: true } | { ok: false; reason: string } {
  const problems = kinds
    .filter((k) => k.stale)
    .map((k) => (k.synced ? `${k.kind.kind} silent for ${Math.round(k.ageMs / 1000)} s` : `${k.kind.kind} not synced`));
  return problems.length === 0 ? { ok: true } : { ok: false, reason: problems.join('; ') };
}

/** /healthz verdict: a kind that was synced but has gone silent past the stall bound: a watch that stalls silently. */
export function liveness(kinds: readonly KindFreshness[]): { ok: true } | { ok: false; reason: string } {
  const silent = kinds.filter((k) => k.synced && k.stale);
  return silent.length === 0
    ? { ok: true }
    : { ok: false, reason: silent.map((k) => `${k.kind.kind} silent for ${Math.round(k.ageMs / 1000)} s`).join('; ') };
}
