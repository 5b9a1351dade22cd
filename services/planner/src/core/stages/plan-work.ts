import type { IngressIntent } from '../translate/ingress-intent.ts';
import type { Claims } from './route-claims.ts';

/** An Ingress whose intent changed in this plan (null: the appliance does not serve it, before or after). */
export interface IntentChange {
  readonly key: string;
  readonly prev: IngressIntent | null;
  readonly next: IngressIntent | null;
}

/** An Ingress whose claims were taken again in this plan. */
export interface ClaimChange {
  readonly key: string;
  readonly prev: Claims;
  readonly next: Claims;
}

/**
 * Per-plan work lists, the one thing the stages share while a plan runs: each stage reads what the stages before it
 * marked and marks what the stages after it must revisit. Mutable on purpose: one PlanWork serves every plan of an
 * engine, so an endpoint change allocates none of these collections.
 */
export class PlanWork {
  readonly intentChanges: IntentChange[] = [];
  readonly groups = new Set<string>();
  readonly reclaim = new Set<string>();
  readonly claimChanges: ClaimChange[] = [];
  readonly routeBuckets = new Set<string>();
  readonly defaults = new Set<string>();
  readonly tls = new Set<string>();
  readonly vs = new Set<string>();
  readonly owners = new Set<string>();
  readonly certs = new Set<string>();
  readonly pools = new Set<string>();
  /** Pools whose members must be resolved again, with the clusters concerned (one cluster, the usual case, unboxed). */
  readonly reresolve = new Map<string, string | Set<string>>();
  readonly conditions = new Set<string>();

  /** Empties every list (an empty collection is not cleared again: clearing is not free on the hot path). */
  clear(): void {
    if (this.intentChanges.length > 0) this.intentChanges.length = 0;
    if (this.groups.size > 0) this.groups.clear();
    if (this.reclaim.size > 0) this.reclaim.clear();
    if (this.claimChanges.length > 0) this.claimChanges.length = 0;
    if (this.routeBuckets.size > 0) this.routeBuckets.clear();
    if (this.defaults.size > 0) this.defaults.clear();
    if (this.tls.size > 0) this.tls.clear();
    if (this.vs.size > 0) this.vs.clear();
    if (this.owners.size > 0) this.owners.clear();
    if (this.certs.size > 0) this.certs.clear();
    if (this.pools.size > 0) this.pools.clear();
    if (this.conditions.size > 0) this.conditions.clear();
    if (this.reresolve.size > 0) this.reresolve.clear();
  }

  /** Marks what a contest's new result touches: the Ingresses whose conditions and the pools whose clusters changed. */
  noteDecided(changed: { readonly ingresses: Iterable<string>; readonly pools: Iterable<string> }): void {
    for (const k of changed.ingresses) this.conditions.add(k);
    for (const p of changed.pools) this.pools.add(p);
  }

  /** Notes that a pool's members in one cluster must be resolved again. */
  markStale(pool: string, cluster: string): void {
    const held = this.reresolve.get(pool);
    if (held === undefined) this.reresolve.set(pool, cluster);
    else if (typeof held === 'string') {
      if (held !== cluster) this.reresolve.set(pool, new Set([held, cluster]));
    } else held.add(cluster);
  }

  /** Whether `markStale(pool, cluster)` was called in this plan. */
  isStale(pool: string, cluster: string): boolean {
    const held = this.reresolve.get(pool);
    return held === cluster || (typeof held === 'object' && held.has(cluster));
  }
}
