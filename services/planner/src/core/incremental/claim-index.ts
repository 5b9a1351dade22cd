import type { Issue } from '../translate/issue.ts';

/** A pool used by an Ingress in a cluster (so the pool takes that cluster's members). */
export interface PoolUse {
  readonly pool: string;
  readonly cluster: string;
  readonly ingressKey: string;
}

/** A claim an Ingress lost, reported as a Warning on it. */
export interface Loss {
  readonly ingressKey: string;
  readonly issue: Issue;
}

/** What one contest (a route bucket, a default backend, a TLS bucket) decided for one Ingress. */
interface Decision {
  readonly uses: readonly PoolUse[];
  readonly issues: readonly Issue[];
}

/**
 * Bookkeeping for incremental planning: the results of every contest, indexed by Ingress (for its conditions) and
 * by pool (which clusters feed it, and who uses it). Updating one contest costs its own size. Mutable: an
 * incremental engine's cache, kept between plans.
 */
export class ClaimIndex {
  private readonly bySource = new Map<string, Map<string, Decision>>();
  private readonly byIngress = new Map<string, Map<string, Decision>>();
  private readonly poolUsers = new Map<string, Map<string, Map<string, number>>>();

  /** Records a contest's result; returns the Ingresses whose decisions changed and the pools whose cluster set changed. */
  setSource(
    source: string,
    uses: readonly PoolUse[],
    losses: readonly Loss[],
  ): { ingresses: Set<string>; pools: Set<string> } {
    const next = new Map<string, { uses: PoolUse[]; issues: Issue[] }>();
    const entry = (k: string): { uses: PoolUse[]; issues: Issue[] } => {
      let e = next.get(k);
      if (e === undefined) next.set(k, (e = { uses: [], issues: [] }));
      return e;
    };
    for (const u of uses) entry(u.ingressKey).uses.push(u);
    for (const l of losses) entry(l.ingressKey).issues.push(l.issue);
    const prev = this.bySource.get(source) ?? new Map<string, Decision>();
    const ingresses = new Set<string>();
    const pools = new Set<string>();
    for (const [key, d] of prev) {
      if (same(d, next.get(key))) continue;
      ingresses.add(key);
      for (const u of d.uses) if (this.unuse(u)) pools.add(u.pool);
      const mine = this.byIngress.get(key);
      mine?.delete(source);
      if (mine?.size === 0) this.byIngress.delete(key);
    }
    for (const [key, d] of next) {
      if (same(prev.get(key), d)) continue;
      ingresses.add(key);
      for (const u of d.uses) if (this.use(u)) pools.add(u.pool);
      let mine = this.byIngress.get(key);
      if (mine === undefined) this.byIngress.set(key, (mine = new Map()));
      mine.set(source, d);
    }
    if (next.size === 0) this.bySource.delete(source);
    else this.bySource.set(source, next);
    return { ingresses, pools };
  }

  /** The pools an Ingress uses (its won or merged claims), with the cluster each use feeds. */
  usesOf(ingressKey: string): PoolUse[] {
    return [...(this.byIngress.get(ingressKey)?.values() ?? [])].flatMap((d) => d.uses);
  }

  /** The claims an Ingress lost. */
  lossesOf(ingressKey: string): Issue[] {
    return [...(this.byIngress.get(ingressKey)?.values() ?? [])].flatMap((d) => d.issues);
  }

  /** The clusters feeding a pool (sorted), or none when no one uses it. */
  clustersOf(pool: string): string[] {
    const byCluster = this.poolUsers.get(pool);
    if (byCluster === undefined) return [];
    if (byCluster.size === 1) for (const c of byCluster.keys()) return [c];
    return [...byCluster.keys()].sort();
  }

  /** The Ingresses using a pool through one cluster. */
  usersOf(pool: string, cluster: string): string[] {
    return [...(this.poolUsers.get(pool)?.get(cluster)?.keys() ?? [])];
  }

  /** Adds a use; true when it brings a new cluster to the pool. */
  private use(u: PoolUse): boolean {
    let byCluster = this.poolUsers.get(u.pool);
    if (byCluster === undefined) this.poolUsers.set(u.pool, (byCluster = new Map()));
    let users = byCluster.get(u.cluster);
    const added = users === undefined;
    if (users === undefined) byCluster.set(u.cluster, (users = new Map()));
    users.set(u.ingressKey, (users.get(u.ingressKey) ?? 0) + 1);
    return added;
  }

  /** Removes a use; true when the pool loses its last user in that cluster. */
  private unuse(u: PoolUse): boolean {
    const byCluster = this.poolUsers.get(u.pool);
    const users = byCluster?.get(u.cluster);
    if (byCluster === undefined || users === undefined) return false;
    const n = (users.get(u.ingressKey) ?? 0) - 1;
    if (n > 0) users.set(u.ingressKey, n);
    else users.delete(u.ingressKey);
    if (users.size > 0) return false;
    byCluster.delete(u.cluster);
    if (byCluster.size === 0) this.poolUsers.delete(u.pool);
    return true;
  }
}

function same(a: Decision | undefined, b: Decision | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.uses.length !== b.uses.length || a.issues.length !== b.issues.length) return false;
  for (let i = 0; i < a.uses.length; i++)
    if (a.uses[i]!.pool !== b.uses[i]!.pool || a.uses[i]!.cluster !== b.uses[i]!.cluster) return false;
  for (let i = 0; i < a.issues.length; i++)
    if (a.issues[i]!.reason !== b.issues[i]!.reason || a.issues[i]!.message !== b.issues[i]!.message) return false;
  return true;
}
