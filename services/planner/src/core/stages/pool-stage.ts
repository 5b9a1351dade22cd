import { bucketOfSet } from '../incremental/keyed-buckets.ts';
import { serviceKey } from '../incremental/dirty-set.ts';
import type { PoolSpec } from '../translate/ingress-intent.ts';
import type { WorldView } from '../world/world-view.ts';
import { asksAffinity, buildPool, poolMembers } from './assemble-parts.ts';
import type { PlanWork } from './plan-work.ts';
import { resolveMembers, type Resolution } from './resolve-members.ts';
import type { PlanPass, Stage, StageContext } from './stage.ts';

/** A pool as last resolved: the spec it was resolved with and its members per cluster. */
interface HeldPool {
  spec: PoolSpec;
  readonly per: Map<string, Resolution>;
}

/**
 * Stage 9, pools: resolves each used pool's members per cluster that feeds it (EndpointSlices, or Ready nodes ×
 * nodePort) and writes the pools that changed. Keeps the pool specs the intents name (counted), the resolutions, and
 * which pools follow each Service and cluster (an incremental engine's cache: an endpoint change re-resolves only
 * the pools of its Service, in its cluster).
 */
export class PoolStage implements Stage {
  private readonly ctx: StageContext;
  private readonly specs = new Map<string, { spec: PoolSpec; refs: number }>();
  private readonly resolutions = new Map<string, HeldPool>();
  private readonly poolsByService = new Map<string, Set<string>>();
  private readonly poolsByCluster = new Map<string, Set<string>>();

  constructor(ctx: StageContext) {
    this.ctx = ctx;
  }

  /** Whether a pool of this appliance takes members from that Service (`serviceKey`). */
  follows(service: string): boolean {
    return this.poolsByService.has(service);
  }

  /** What resolving a pool's members in one cluster reported. */
  issuesOf(pool: string, cluster: string): Resolution['issues'] {
    return this.resolutions.get(pool)?.per.get(cluster)?.issues ?? [];
  }

  run({ world, dirty, work }: PlanPass): void {
    // Removed specs go before added ones, change by change: a spec named by both keeps the newest object.
    for (const { prev, next } of work.intentChanges) {
      for (const p of prev?.pools ?? []) this.unrefSpec(p.name);
      for (const p of next?.pools ?? []) this.refSpec(p);
    }
    this.markStale(dirty, work);
    if (work.pools.size > 0) for (const pool of work.pools) this.write(world, pool, work);
    if (work.reresolve.size > 0)
      for (const pool of work.reresolve.keys()) if (!work.pools.has(pool)) this.write(world, pool, work);
  }

  private markStale(dirty: PlanPass['dirty'], work: PlanWork): void {
    if (dirty.services.size > 0)
      for (const svc of dirty.services) {
        const pools = this.poolsByService.get(svc);
        if (pools !== undefined) for (const pool of pools) work.markStale(pool, svc.slice(0, svc.indexOf('/')));
      }
    if (this.ctx.profile.backendMode !== 'nodeport' || dirty.nodeClusters.size === 0) return;
    for (const c of dirty.nodeClusters) for (const pool of this.poolsByCluster.get(c) ?? []) work.markStale(pool, c);
  }

  private write(world: WorldView, pool: string, work: PlanWork): void {
    const { encoder, profile, claims } = this.ctx;
    const clusters = claims.clustersOf(pool);
    const spec = this.specs.get(pool)?.spec;
    const held = this.resolutions.get(pool);
    let sameClusters = held !== undefined && spec !== undefined;
    if (held !== undefined) {
      // Deleting the current key while iterating a Map is well defined.
      for (const c of held.per.keys()) {
        if (spec !== undefined && clusters.includes(c)) continue;
        held.per.delete(c);
        this.unindex(pool, c, held.spec);
        sameClusters = false;
      }
    }
    if (spec === undefined || clusters.length === 0) {
      this.resolutions.delete(pool);
      encoder.deletePool(pool);
      return;
    }
    const per = held?.per ?? new Map<string, Resolution>();
    for (const c of clusters) if (this.resolve(world, pool, spec, c, per, work)) sameClusters = false;
    const sorted = per.size === 1 ? per : new Map([...per.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)));
    // The same spec object over the same clusters gives the same pool header: only the members can have changed.
    if (sameClusters && held!.spec === spec) encoder.setPoolMembers(pool, poolMembers(sorted));
    else encoder.setPool(buildPool(spec, profile, sorted));
    if (held !== undefined && held.per === sorted) held.spec = spec;
    else this.resolutions.set(pool, { spec, per: sorted });
  }

  /** Resolves one cluster's members of a pool unless they are held and not stale; true when the cluster is new. */
  private resolve(
    world: WorldView,
    pool: string,
    spec: PoolSpec,
    cluster: string,
    per: Map<string, Resolution>,
    work: PlanWork,
  ): boolean {
    const prev = per.get(cluster);
    if (prev !== undefined && !work.isStale(pool, cluster)) return false;
    const r = resolveMembers(
      world,
      {
        cluster,
        namespace: spec.namespace,
        service: spec.service,
        port: spec.port,
        mode: this.ctx.profile.backendMode,
        weight: this.ctx.clusters.get(cluster)?.weight ?? 1,
        asksAffinity: asksAffinity(spec),
      },
      prev?.members,
    );
    if (prev === undefined || !sameIssues(prev.issues, r.issues))
      for (const k of this.ctx.claims.usersOf(pool, cluster)) work.conditions.add(k);
    if (prev !== undefined) {
      Object.assign(prev, r); // only this stage holds it: the new object dies young instead of being kept
      return false;
    }
    per.set(cluster, r);
    this.index(pool, cluster, spec);
    return true;
  }

  private index(pool: string, cluster: string, spec: PoolSpec): void {
    bucketOfSet(this.poolsByService, serviceKey(cluster, spec.namespace, spec.service)).add(pool);
    bucketOfSet(this.poolsByCluster, cluster).add(pool);
  }

  private unindex(pool: string, cluster: string, spec: PoolSpec): void {
    const key = serviceKey(cluster, spec.namespace, spec.service);
    const svcPools = this.poolsByService.get(key);
    svcPools?.delete(pool);
    if (svcPools?.size === 0) this.poolsByService.delete(key);
    const clusterPools = this.poolsByCluster.get(cluster);
    clusterPools?.delete(pool);
    if (clusterPools?.size === 0) this.poolsByCluster.delete(cluster);
  }

  private refSpec(spec: PoolSpec): void {
    const s = this.specs.get(spec.name);
    this.specs.set(spec.name, { spec, refs: (s?.refs ?? 0) + 1 });
  }

  private unrefSpec(name: string): void {
    const s = this.specs.get(name);
    if (s === undefined) return;
    if (s.refs > 1) this.specs.set(name, { spec: s.spec, refs: s.refs - 1 });
    else this.specs.delete(name);
  }
}

/** Whether two resolutions report the same issues (then the users' conditions need no rewrite). */
function sameIssues(a: Resolution['issues'], b: Resolution['issues']): boolean {
  // Clean resolutions share one empty list: the usual call is decided here, with no callback allocated.
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]!.reason !== b[i]!.reason || a[i]!.message !== b[i]!.message) return false;
  return true;
}
