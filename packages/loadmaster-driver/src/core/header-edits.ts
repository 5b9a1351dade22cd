import type { HeaderEdits, Route } from '@portolan/desired-state';
import type { LmRuleSpec } from './lm-vendor-state.ts';
import { ownerMark } from './owner-mark.ts';
import { deletableName, headerName, headerValue } from './route-values.ts';

/**
 * RequestHeaderModifier / ResponseHeaderModifier as LoadMaster header rules on the route's SubVS (pure). The
 * SubVS's request rules apply to every request routed to it and its response rules to the responses, so routes
 * with edits get a SubVS of their own (per pool and edits; see subVsKey). In Gateway API order:
 * `set` = DeleteHeaderRule then AddHeaderRule (overwrite, or add when absent), `add` = AddHeaderRule (one more
 * line, which HTTP reads as appending to the value), `remove` = DeleteHeaderRule.
 */

/** The header rules of one SubVS and their order in its request and response lists. */
export interface EditRules {
  readonly rules: readonly LmRuleSpec[];
  readonly request: readonly string[];
  readonly response: readonly string[];
}

/** The SubVS a route goes to: its pool, or pool and header edits when it has any (edits apply per SubVS). */
export function subVsKey(route: Route): string {
  const { requestHeaders, responseHeaders } = route.filters ?? {};
  if (requestHeaders === undefined && responseHeaders === undefined) return route.pool;
  return `${route.pool}|${JSON.stringify([requestHeaders ?? null, responseHeaders ?? null])}`;
}

/** The edit rules of the SubVS `key` that `route` (the first route to it) goes to. */
export function renderEditRules(appliance: string, vsName: string, key: string, route: Route): EditRules {
  const rules: LmRuleSpec[] = [];
  const list = (which: 'rq' | 'rs', edits: HeaderEdits | undefined): string[] => {
    if (edits === undefined) return [];
    const names: string[] = [];
    const push = (rule: Omit<LmRuleSpec, 'name' | 'incHost'>): void => {
      const name = ownerMark(appliance, 'rl', `${vsName}|${key}|${which}|${names.length}`);
      rules.push({ name, incHost: false, ...rule });
      names.push(name);
    };
    for (const { name, value } of edits.set) {
      push({ type: 2, pattern: deletableName(route, name) });
      push({ type: 1, pattern: '', header: name, replacement: headerValue(route, name, value) });
    }
    for (const { name, value } of edits.add)
      push({ type: 1, pattern: '', header: headerName(route, name), replacement: headerValue(route, name, value) });
    for (const name of edits.remove) push({ type: 2, pattern: deletableName(route, name) });
    return names;
  };
  const request = list('rq', route.filters?.requestHeaders);
  const response = list('rs', route.filters?.responseHeaders);
  return { rules, request, response };
}
