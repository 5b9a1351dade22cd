import type { KubeKind, StateDigest } from '@portolan/kube-model';

/** How long one difference must stay unchanged on both sides before it counts as a lost message. */
export const CONFIRM_MS = 3_000;
/** The least time between two relist requests for the same kind of the same cluster. */
export const REQUEST_COOLDOWN_MS = 300_000;

/** Bound on differences remembered at once. */
const MAX_DIFFERENCES = 1024;

/** A difference between a watcher's settled digest and the planner's, as last seen. */
interface Difference {
  readonly watcher: StateDigest;
  readonly planner: StateDigest;
  readonly sinceMs: number;
  /** A relist was asked for this very difference: it is not asked again until something changes. */
  requested: boolean;
}

/** What the audit concluded from one settled heartbeat kind. */
export type AuditVerdict =
  | { readonly type: 'match' }
  | { readonly type: 'pending' }
  | { readonly type: 'request'; readonly watcher: StateDigest; readonly planner: StateDigest };

/**
 * Compares what each watcher says it published of a kind (when settled: everything it published was acknowledged
 * before its heartbeat) with what the planner folded up to that heartbeat. A broker can lose a message it
 * acknowledged; nothing else would notice until the next periodic relist. A difference is a lost message only once
 * it has stayed the same on both sides for CONFIRM_MS: a watcher behind the other replica, or a change in flight
 * past the heartbeat, moves one side. Then the kind's watchers are asked to relist and republish, at most once per
 * REQUEST_COOLDOWN_MS per cluster and kind, and never twice for the same unchanged difference (one a republish did
 * not mend is not a lost message). Mutable by design: it remembers differences between heartbeats.
 */
export class StateAudit {
  private readonly differences = new Map<string, Difference>();
  private readonly lastRequest = new Map<string, number>();

  observe(
    cluster: string,
    watcherId: string,
    kind: KubeKind,
    watcher: StateDigest,
    planner: StateDigest,
    nowMs: number,
  ): AuditVerdict {
    const key = `${cluster}\0${watcherId}\0${kind}`;
    if (same(watcher, planner)) {
      this.differences.delete(key);
      return { type: 'match' };
    }
    const seen = this.differences.get(key);
    if (seen === undefined || !same(seen.watcher, watcher) || !same(seen.planner, planner)) {
      // Watchers that stopped mid-difference (restarted under a new id) leave entries: keep them bounded.
      if (seen === undefined && this.differences.size >= MAX_DIFFERENCES) this.differences.clear();
      this.differences.set(key, { watcher, planner, sinceMs: nowMs, requested: false });
      return { type: 'pending' };
    }
    if (seen.requested || nowMs - seen.sinceMs < CONFIRM_MS) return { type: 'pending' };
    const kindKey = `${cluster}\0${kind}`;
    const last = this.lastRequest.get(kindKey);
    if (last !== undefined && nowMs - last < REQUEST_COOLDOWN_MS) return { type: 'pending' };
    seen.requested = true;
    this.lastRequest.set(kindKey, nowMs);
    return { type: 'request', watcher, planner };
  }
}

function same(a: StateDigest, b: StateDigest): boolean {
  return a.digest === b.digest && a.count === b.count;
}
