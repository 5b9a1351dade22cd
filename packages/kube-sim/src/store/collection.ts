import type { FieldSelector } from '../core/field-selector.ts';
import type { LabelSelector } from '../core/label-selector.ts';
import type { KubeObject, ResourceType } from '../core/resource-types.ts';

/** The type of a change as watch clients see it. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One committed change: the new state (for DELETED, the last state stamped with the delete's resourceVersion). */
export interface ChangeEvent {
  readonly rv: number;
  readonly type: WatchEventType;
  readonly key: string;
  readonly namespace: string;
  readonly object: KubeObject;
  readonly previous: KubeObject | undefined;
  /** Cached wire encoding per event type, so fan-out serializes once per event, not once per watcher. */
  encoded?: Partial<Record<WatchEventType, string>>;
}

/** A registered watch: its filter, and where matching events go (synchronously, in resourceVersion order). */
export interface WatchSubscriber {
  readonly namespace: string;
  readonly labels: LabelSelector;
  readonly fields: FieldSelector;
  deliver(type: WatchEventType, event: ChangeEvent): void;
}

/** All objects, retained history and watchers of one resource type. */
export interface Collection {
  readonly type: ResourceType;
  readonly objects: Map<string, KubeObject>;
  sortedKeys: string[] | null;
  /** Changes after the compaction revision, in resourceVersion order. */
  history: ChangeEvent[];
  readonly watchers: Set<WatchSubscriber>;
}

/** The keys of a collection in etcd order, cached until an object is added or removed. */
export function sortedKeysOf(col: Collection): string[] {
  col.sortedKeys ??= [...col.objects.keys()].sort();
  return col.sortedKeys;
}

/** Index of the first key in a sorted array that is greater than (or equal to, when inclusive) the given key. */
export function lowerBound(keys: readonly string[], key: string, inclusive: boolean): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const k = keys[mid] ?? '';
    if (k < key || (!inclusive && k === key)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index of the first history event with a resourceVersion greater than rv. */
export function firstEventAfter(history: readonly ChangeEvent[], rv: number): number {
  let lo = 0;
  let hi = history.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((history[mid]?.rv ?? 0) <= rv) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
