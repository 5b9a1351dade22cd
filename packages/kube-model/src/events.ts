import type { KubeKind } from './objects.ts';

/** What happened to an object, as the watch API reports it. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/**
 * One observed change, as the planner folds it. `object` is a trimmed object (the planner trims again, which is
 * idempotent). `generation` is the watcher's list generation the event belongs to (0 when unknown).
 */
export interface KubeWatchEvent {
  readonly cluster: string;
  readonly kind: KubeKind;
  readonly type: WatchEventType;
  readonly object: unknown;
  readonly generation?: number;
  /** A DELETED the watcher inferred from a relist (no explicit delete): the list marker that follows decides it. */
  readonly noticedByRelist?: boolean;
}

/**
 * After every (re)list, the set of keys (`objectKey`) present at the list's resourceVersion, in chunks so a
 * message stays under the broker's payload limit. Once every chunk of a generation has arrived, every object of
 * that (cluster, kind) missing from the union and not changed since the list is deleted.
 */
export interface KubeListMarker {
  readonly cluster: string;
  readonly kind: KubeKind;
  /** Increases with every relist of this (cluster, kind) by one watcher. */
  readonly generation: number;
  /** The list's resourceVersion: objects seen at a newer version survive even when absent from the list. */
  readonly resourceVersion: string;
  readonly chunkIndex: number;
  readonly chunkCount: number;
  readonly keys: readonly string[];
  /** When the watcher completed the list (its clock, ms since the epoch; 0 when unknown): a relist confirms a held removal only this long after the hold began. */
  readonly observedAtMs?: number;
}
