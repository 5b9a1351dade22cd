/** Per-plan work lists: what each phase must revisit. */
export class PlanWork {
  readonly groups = new Set<string>();
  readonly reclaim = new Set<string>();
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

  /** Empties every list, so one Work serves every plan (no per-event allocation of a dozen collections). */
  clear(): void {
    if (this.groups.size > 0) this.groups.clear();
    if (this.reclaim.size > 0) this.reclaim.clear();
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
