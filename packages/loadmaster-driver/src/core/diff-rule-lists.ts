import type { Operation } from '@portolan/appliance-driver';
import type { JsonObject } from '@portolan/desired-state';
import type { LmRuleSpec } from './lm-vendor-state.ts';

/**
 * Rule comparisons for the diff (pure): a rule as every parameter the driver writes, and the ordered rule lists
 * of a VS (pre-processing) or SubVS (request, response headers) kept in step.
 */

/** Which ordered list of a VS or SubVS: `addprerule`, `addrequestrule`, `addresponserule`. */
export type RuleList = 'pre' | 'request' | 'response';

/** Every parameter of a rule, defaults filled in: what render wrote and read-back returns, comparable as JSON. */
export function ruleParams(rule: LmRuleSpec): JsonObject {
  return {
    name: rule.name,
    type: rule.type ?? 0,
    pattern: rule.pattern,
    incHost: rule.incHost,
    header: rule.header ?? '',
    replacement: rule.replacement ?? '',
    setOnMatch: rule.setOnMatch ?? 0,
    onlyOnFlag: rule.onlyOnFlag ?? 0,
    onlyOnNoFlag: rule.onlyOnNoFlag ?? 0,
  };
}

/** True when the appliance's rule has every parameter render wants. */
export function isSameRule(want: LmRuleSpec, have: LmRuleSpec): boolean {
  return JSON.stringify(ruleParams(want)) === JSON.stringify(ruleParams(have));
}

/**
 * Operations making an ordered list `have` equal to `want`: the common prefix stays; every rule after it is
 * removed and the wanted ones appended in order (the appliance appends on add), so order is exact.
 */
export function diffRuleList(
  parent: string,
  subVs: string | null,
  list: RuleList,
  want: readonly string[],
  have: readonly string[],
): Operation[] {
  let same = 0;
  while (same < want.length && same < have.length && want[same] === have[same]) same++;
  const where = subVs === null ? `virtual service ${parent}` : `SubVS ${subVs}`;
  const op = (rule: string, action: 'create' | 'delete'): Operation => ({
    objectType: 'rule-list',
    objectName: `${parent}/${subVs ?? ''}/${list}/${rule}`,
    action,
    payload: { parent, ...(subVs === null ? {} : { subVs }), list, rule },
    summary: `${action === 'create' ? 'append' : 'remove'} ${list} rule ${rule} ${action === 'create' ? 'to' : 'from'} ${where}`,
  });
  return [...have.slice(same).map((r) => op(r, 'delete')), ...want.slice(same).map((r) => op(r, 'create'))];
}
