import type { KubeKind, KubeListMarker, TrimmedObject } from '@portolan/kube-model';
import type { HeldRemovals } from './held-removals.ts';
import { judgeUnexplainedRemovals, removalWeight, type RemovalPolicy } from './removal-hold.ts';
import { compareResourceVersions } from './resource-version.ts';

/**
 * A key's register: a stored object or a tombstone (object null), with the resourceVersion that produced it. A newer
 * event updates it in place (only the world holds entries: nothing else sees the change).
 */
export interface Entry {
  rv: string;
  object: TrimmedObject | null;
}

/** One kind's registers in one cluster, with the relists being collected. */
export interface KindState {
  readonly entries: Map<string, Entry>;
  /** The resourceVersion of the newest completed relist: older events for keys it lacked are stale. */
  floor: string;
  /** Chunks being collected, per list generation (two watcher replicas may interleave theirs). */
  readonly pending: Map<number, { rv: string; count: number; chunks: Map<number, readonly string[]> }>;
}

/** Bound on generations collected at once per (cluster, kind); the oldest (by resourceVersion) give way. */
const MAX_PENDING = 8;

/** A completed relist: every key it held, and its resourceVersion (the kind's new floor). */
export interface CompletedList {
  readonly listed: ReadonlySet<string>;
  readonly rv: string;
}

/**
 * Folds one chunk of a list marker into its kind; returns the list once every chunk of its generation is in. Lists
 * are ordered by their resourceVersion, not their generation number, so a list older than the newest applied one (a
 * late chunk, a redelivery, another watcher replica) changes nothing.
 */
export function completeList(ks: KindState, marker: KubeListMarker): CompletedList | null {
  if (marker.chunkCount < 1 || marker.chunkIndex < 0 || marker.chunkIndex >= marker.chunkCount) return null;
  if (ks.floor !== '' && compareResourceVersions(marker.resourceVersion, ks.floor) <= 0) return null;
  let pending = ks.pending.get(marker.generation);
  if (pending === undefined) {
    pending = { rv: marker.resourceVersion, count: marker.chunkCount, chunks: new Map() };
    ks.pending.set(marker.generation, pending);
    if (ks.pending.size > MAX_PENDING) {
      const oldest = [...ks.pending.entries()].sort((a, b) => compareResourceVersions(a[1].rv, b[1].rv))[0]!;
      ks.pending.delete(oldest[0]);
    }
  }
  pending.chunks.set(marker.chunkIndex, marker.keys);
  if (pending.chunks.size < pending.count) return null;
  const listed = new Set<string>();
  for (const keys of pending.chunks.values()) for (const k of keys) listed.add(k);
  const rv = pending.rv;
  ks.pending.delete(marker.generation);
  ks.floor = rv;
  for (const [g, p] of [...ks.pending]) if (compareResourceVersions(p.rv, rv) <= 0) ks.pending.delete(g);
  return { listed, rv };
}

/**
 * What a completed list removes now (key and last object), unless the safety rule holds it: removals no DELETED
 * event explains are held as a whole when they weigh more than the policy allows, and a held object still missing
 * from a later list is removed once the policy's confirmation time has passed since its hold began. Objects the list
 * holds again are released; tombstones older than the list are dropped (the floor now rejects stale events).
 */
export function unlistedRemovals(
  marker: KubeListMarker,
  ks: KindState,
  list: CompletedList,
  policy: RemovalPolicy | null,
  held: HeldRemovals,
): [string, TrimmedObject][] {
  const { cluster, kind } = marker;
  const now = marker.observedAtMs ?? 0;
  const gap: [string, TrimmedObject][] = [];
  for (const [key, entry] of [...ks.entries]) {
    if (list.listed.has(key)) {
      if (held.size > 0)
        held.release(cluster, kind, key, { by: 'relist', reason: 'a later relist lists it again' }, false);
      continue;
    }
    if (compareResourceVersions(entry.rv, list.rv) > 0) continue;
    if (entry.object === null) {
      ks.entries.delete(key);
      continue;
    }
    gap.push([key, entry.object]);
  }
  const holdReason = policy === null ? null : judgeGap(cluster, kind, ks, gap, policy, held);
  const removed: [string, TrimmedObject][] = [];
  for (const [key, object] of gap) {
    const hold = held.holdOf(cluster, kind, key);
    if (hold !== undefined) {
      if (policy !== null && now - hold.sinceMs < policy.relistConfirmMs) continue;
      held.release(cluster, kind, key, { by: 'relist', reason: 'a later relist confirms it is gone' }, true);
    } else if (holdReason !== null) {
      held.hold({ cluster, kind, key, sinceMs: now, reason: holdReason });
      continue;
    }
    removed.push([key, object]);
  }
  return removed;
}

/** Why the gap's removals not yet held are held (null: they go out), weighed against everything the kind has. */
function judgeGap(
  cluster: string,
  kind: KubeKind,
  ks: KindState,
  gap: readonly [string, TrimmedObject][],
  policy: RemovalPolicy,
  held: HeldRemovals,
): string | null {
  let gone = 0;
  for (const [key, object] of gap)
    if (held.holdOf(cluster, kind, key) === undefined) gone += removalWeight(kind, object);
  if (gone === 0) return null;
  let total = 0;
  for (const entry of ks.entries.values()) if (entry.object !== null) total += removalWeight(kind, entry.object);
  return judgeUnexplainedRemovals(kind, gone, total, policy);
}
