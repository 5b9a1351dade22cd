import type { DesiredState } from '@portolan/desired-state';
import { memberSortKey } from './canonical-order.ts';

/** Why a plan is held back from the appliance. */
export interface HoldReason {
  readonly reason: 'TooManyHostsRemoved' | 'TooManyMembersRemoved' | 'PoolEmptied';
  readonly message: string;
}

/** The safety verdict on a plan, relative to what was last applied. */
export type SafetyVerdict =
  | { readonly held: false; readonly overridden: readonly HoldReason[] }
  | { readonly held: true; readonly reasons: readonly HoldReason[] };

/**
 * The safety hold (DESIGN.md §4): a plan that removes more than `maxRemovalFraction` of the hosts or of the
 * backend members the appliance last applied, or empties a pool that had members, is held until an operator
 * overrides it. A member that goes from active to draining is not removed. Pure; O(size of the two states).
 */
export function checkSafety(lastApplied: DesiredState | null, plan: DesiredState, maxRemovalFraction: number, override: boolean): SafetyVerdict {
  const reasons: HoldReason[] = [];
  if (lastApplied !== null) {
    const before = hostsOf(lastApplied);
    const after = hostsOf(plan);
    const goneHosts = [...before].filter((h) => !after.has(h));
    if (before.size > 0 && goneHosts.length / before.size > maxRemovalFraction) {
      reasons.push({ reason: 'TooManyHostsRemoved', message: `the plan removes ${goneHosts.length} of ${before.size} hosts (${percent(goneHosts.length, before.size)}; limit ${percent(maxRemovalFraction, 1)}), e.g. ${goneHosts.slice(0, 3).map((h) => h || '*').join(', ')}` });
    }
    const m0 = membersOf(lastApplied);
    const m1 = membersOf(plan);
    let gone = 0;
    for (const k of m0) if (!m1.has(k)) gone++;
    if (m0.size > 0 && gone / m0.size > maxRemovalFraction) {
      reasons.push({ reason: 'TooManyMembersRemoved', message: `the plan removes ${gone} of ${m0.size} backend members (${percent(gone, m0.size)}; limit ${percent(maxRemovalFraction, 1)})` });
    }
    const prevPools = new Map(lastApplied.pools.map((p) => [p.name, p.members.length] as const));
    for (const p of plan.pools) {
      if ((prevPools.get(p.name) ?? 0) > 0 && p.members.length === 0) reasons.push({ reason: 'PoolEmptied', message: `the plan empties pool ${p.name} (it had ${prevPools.get(p.name)} members)` });
    }
  }
  if (reasons.length === 0 || override) return { held: false, overridden: override ? reasons : [] };
  return { held: true, reasons };
}

function hostsOf(d: DesiredState): Set<string> {
  const out = new Set<string>();
  for (const vs of d.virtualServices) for (const r of vs.routes) out.add(r.host);
  return out;
}

function membersOf(d: DesiredState): Set<string> {
  const out = new Set<string>();
  for (const p of d.pools) for (const m of p.members) out.add(`${p.name}\u0000${memberSortKey(m)}`);
  for (const b of d.bindings) for (const m of b.members) out.add(`binding\u0000${b.target}\u0000${memberSortKey(m)}`);
  return out;
}

function percent(n: number, of: number): string {
  return `${Math.round((n / of) * 1000) / 10}%`;
}
