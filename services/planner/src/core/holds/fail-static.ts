import type { DesiredState, PoolMember } from '@portolan/desired-state';
import { sortMembers } from '@portolan/snapshot';

/** A cluster's staleness setting (fleet config `staleAfterSeconds`). */
export interface StalenessPolicy {
  readonly name: string;
  readonly staleAfterSeconds: number;
}

/**
 * Clusters whose watcher is stale at `now` (ms since the epoch): no heartbeat within `staleAfterSeconds`, or none
 * ever seen. Pure: the shell passes the clock in.
 */
export function staleClusters(
  lastHeartbeatMs: ReadonlyMap<string, number>,
  clusters: readonly StalenessPolicy[],
  now: number,
): Set<string> {
  const out = new Set<string>();
  for (const c of clusters) {
    const last = lastHeartbeatMs.get(c.name);
    if (last === undefined || now - last > c.staleAfterSeconds * 1000) out.add(c.name);
  }
  return out;
}

/**
 * Fail-static (docs/design-notes.md §3): members a stale cluster contributed are taken from the last applied state instead of
 * the new plan, so a silent watcher never empties pools; healthy clusters' members follow the plan. Applies to
 * pools and Service-mode bindings that exist in both states.
 */
export function applyFailStatic(
  lastApplied: DesiredState | null,
  plan: DesiredState,
  stale: ReadonlySet<string>,
): DesiredState {
  if (lastApplied === null || stale.size === 0) return plan;
  const keep = (fresh: readonly PoolMember[], old: readonly PoolMember[] | undefined): readonly PoolMember[] => {
    if (old === undefined) return fresh;
    return sortMembers([...fresh.filter((m) => !stale.has(m.cluster)), ...old.filter((m) => stale.has(m.cluster))]);
  };
  const prevPools = new Map(lastApplied.pools.map((p) => [p.name, p.members] as const));
  const prevBindings = new Map(lastApplied.bindings.map((b) => [b.target, b.members] as const));
  return {
    ...plan,
    pools: plan.pools.map((p) => ({ ...p, members: keep(p.members, prevPools.get(p.name)) })),
    bindings: plan.bindings.map((b) => ({ ...b, members: keep(b.members, prevBindings.get(b.target)) })),
  };
}
