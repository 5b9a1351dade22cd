import { matchesFields, type FieldSelector } from './field-selector.ts';
import { matchesLabels, type LabelSelector } from './label-selector.ts';
import type { KubeObject } from './resource-types.ts';

/** What a watch or list selects: a namespace ('' for all) and label and field selectors. */
export interface ObjectFilter {
  readonly namespace: string;
  readonly labels: LabelSelector;
  readonly fields: FieldSelector;
}

/** True when an object is selected by the filter's selectors (namespace is checked by key elsewhere). */
export function matchesSelectors(filter: ObjectFilter, obj: KubeObject): boolean {
  return matchesLabels(filter.labels, obj.metadata?.labels) && matchesFields(filter.fields, obj);
}

/**
 * The event a filtered watcher sees for a change, as the API server's watch cache computes it:
 * an object that starts matching is ADDED, one that stops matching is DELETED, and null means nothing.
 */
export function filteredEventType(
  filter: ObjectFilter,
  type: 'ADDED' | 'MODIFIED' | 'DELETED',
  namespace: string,
  object: KubeObject,
  previous: KubeObject | undefined,
): 'ADDED' | 'MODIFIED' | 'DELETED' | null {
  if (filter.namespace !== '' && filter.namespace !== namespace) return null;
  if (filter.labels.length === 0 && filter.fields.length === 0) return type;
  const now = type !== 'DELETED' && matchesSelectors(filter, object);
  const before =
    type === 'DELETED'
      ? matchesSelectors(filter, object)
      : previous !== undefined && matchesSelectors(filter, previous);
  if (type === 'ADDED') return now ? 'ADDED' : null;
  if (type === 'DELETED') return before ? 'DELETED' : null;
  if (now && before) return 'MODIFIED';
  if (now) return 'ADDED';
  return before ? 'DELETED' : null;
}
