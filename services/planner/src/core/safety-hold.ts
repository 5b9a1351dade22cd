import type { DesiredState, Pool, PoolMember } from '@portolan/desired-state';
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
 * overrides it. A member that goes from active to draining is not removed. Pure; O(pools) plus the size of what
 * changed when the two states share unchanged objects, O(size of the two states) otherwise.
 */
export function checkSafety(lastApplied: DesiredState | null, plan: DesiredState, maxRemovalFraction: number, override: boolean): SafetyVerdict {
  const reasons: HoldReason[] = [];
  if (lastApplied !== null) {
    // Unchanged arrays and objects are skipped by reference (an incrementally decoded snapshot shares them with the
    // previous one), so a one-endpoint change costs a walk over pool references, not over every member.
    if (lastApplied.virtualServices !== plan.virtualServices) {
      const before = hostsOf(lastApplied);
      const after = hostsOf(plan);
      const goneHosts = [...before].filter((h) => !after.has(h));
      if (before.size > 0 && goneHosts.length / before.size > maxRemovalFraction) {
        reasons.push({ reason: 'TooManyHostsRemoved', message: `the plan removes ${goneHosts.length} of ${before.size} hosts (${percent(goneHosts.length, before.size)}; limit ${percent(maxRemovalFraction, 1)}), e.g. ${goneHosts.slice(0, 3).map((h) => h || '*').join(', ')}` });
      }
    }
    const pools = comparePools(lastApplied.pools, plan.pools);
    const gone = pools.gone + goneMembers(lastApplied.bindings, plan.bindings, (b) => b.target);
    const total = gone === 0 ? 0 : countMembers(lastApplied);
    rememberCount(plan, lastApplied, pools.delta);
    if (total > 0 && gone / total > maxRemovalFraction) {
      reasons.push({ reason: 'TooManyMembersRemoved', message: `the plan removes ${gone} of ${total} backend members (${percent(gone, total)}; limit ${percent(maxRemovalFraction, 1)})` });
    }
    for (const [name, had] of pools.emptied) reasons.push({ reason: 'PoolEmptied', message: `the plan empties pool ${name} (it had ${had} members)` });
  }
  if (reasons.length === 0 || override) return { held: false, overridden: override ? reasons : [] };
  return { held: true, reasons };
}

function hostsOf(d: DesiredState): Set<string> {
  const out = new Set<string>();
  for (const vs of d.virtualServices) for (const r of vs.routes) out.add(r.host);
  return out;
}

/** Members of `before` (pools or bindings, by name) that `after` no longer has; identical entries cost nothing. */
function goneMembers<T extends { readonly members: readonly PoolMember[] }>(before: readonly T[], after: readonly T[], nameOf: (t: T) => string): number {
  if (before === after) return 0;
  let next: Map<string, T> | null = null;
  let gone = 0;
  for (const [i, old] of before.entries()) {
    // Both lists are sorted by name: look by position first (the usual case), by name when that fails.
    const at = after[i];
    const now = at === old || (at !== undefined && nameOf(at) === nameOf(old)) ? at : (next ??= new Map(after.map((t) => [nameOf(t), t] as const))).get(nameOf(old));
    if (now === old) continue;
    if (now === undefined) {
      gone += new Set(old.members.map(memberSortKey)).size;
      continue;
    }
    const kept = new Set(now.members.map(memberSortKey));
    for (const key of new Set(old.members.map(memberSortKey))) if (!kept.has(key)) gone++;
  }
  return gone;
}

/**
 * One pass over the pools of two states (both sorted by name; looked up by position first, by name when that
 * fails; pools that are the same object cost a comparison): the members `after` no longer has, the pools it
 * empties, and how many pool members it has more or fewer.
 */
function comparePools(before: readonly Pool[], after: readonly Pool[]): { gone: number; emptied: [string, number][]; delta: number } {
  const out = { gone: 0, emptied: [] as [string, number][], delta: 0 };
  if (before === after) return out;
  let byName: Map<string, Pool> | null = null;
  for (let i = 0; i < before.length; i++) {
    const old = before[i]!;
    const at = after[i];
    if (at === old) continue;
    const now = at !== undefined && at.name === old.name ? at : (byName ??= new Map(after.map((p) => [p.name, p] as const))).get(old.name);
    if (now === old) continue;
    out.gone += goneOf(old.members, now?.members ?? []);
    out.delta += (now?.members.length ?? 0) - old.members.length;
    if (now !== undefined && old.members.length > 0 && now.members.length === 0) out.emptied.push([now.name, old.members.length]);
  }
  // Pools only `after` has add members. When every position matched by object or name and the lengths agree, the
  // names are the same list: there are none.
  if (after.length !== before.length || byName !== null) {
    const had = new Set(before.map((p) => p.name));
    for (const p of after) if (!had.has(p.name)) out.delta += p.members.length;
  }
  return out;
}

/** Members (by identity key) of `old` that `now` lacks. */
function goneOf(old: readonly PoolMember[], now: readonly PoolMember[]): number {
  const kept = new Set(now.map(memberSortKey));
  let gone = 0;
  for (const key of new Set(old.map(memberSortKey))) if (!kept.has(key)) gone++;
  return gone;
}

/** Member counts of desired states already counted or derived (a snapshot's count is its predecessor's ± a delta). */
const memberCounts = new WeakMap<DesiredState, number>();

/** Backend members of a desired state (pools and bindings; a canonical pool lists each member once). */
function countMembers(d: DesiredState): number {
  const held = memberCounts.get(d);
  if (held !== undefined) return held;
  let n = 0;
  for (const p of d.pools) n += p.members.length;
  for (const b of d.bindings) n += b.members.length;
  memberCounts.set(d, n);
  return n;
}

/** Records `plan`'s member count from `before`'s when that is known and the bindings are shared (else it is counted when asked). */
function rememberCount(plan: DesiredState, before: DesiredState, poolDelta: number): void {
  const held = memberCounts.get(before);
  if (held !== undefined && plan.bindings === before.bindings) memberCounts.set(plan, held + poolDelta);
}

function percent(n: number, of: number): string {
  return `${Math.round((n / of) * 1000) / 10}%`;
}
