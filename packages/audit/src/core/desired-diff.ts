import { canonicalJson, type DesiredState } from '@portolan/desired-state';
import { listDesiredObjects, type DesiredObject } from './desired-objects.ts';

/** One object-level difference between two desired states. */
export interface ObjectDifference {
  readonly change: 'added' | 'removed' | 'changed';
  readonly key: string;
  readonly kind: DesiredObject['kind'];
  /** `before → after` summaries (one of them '' for added/removed). */
  readonly before: string;
  readonly after: string;
  readonly sources: readonly string[];
}

/**
 * Object-level differences from `a` to `b`: every object (virtual service, route, pool, member, certificate,
 * binding, condition) added, removed or changed, in the order of `b`'s listing then removals. Pure.
 */
export function diffDesiredStates(a: DesiredState, b: DesiredState): ObjectDifference[] {
  const before = new Map(listDesiredObjects(a).map((o) => [o.key, o]));
  const after = listDesiredObjects(b);
  const out: ObjectDifference[] = [];
  const seen = new Set<string>();
  for (const o of after) {
    seen.add(o.key);
    const old = before.get(o.key);
    if (old === undefined)
      out.push({ change: 'added', key: o.key, kind: o.kind, before: '', after: o.summary, sources: o.sources });
    else if (canonicalJson(old.value) !== canonicalJson(o.value))
      out.push({
        change: 'changed',
        key: o.key,
        kind: o.kind,
        before: old.summary,
        after: o.summary,
        sources: union(old.sources, o.sources),
      });
  }
  for (const [key, o] of before) {
    if (!seen.has(key))
      out.push({ change: 'removed', key, kind: o.kind, before: o.summary, after: '', sources: o.sources });
  }
  return out;
}

function union(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])];
}
