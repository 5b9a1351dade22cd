import type { Route } from '@portolan/desired-state';
import { routeSortKey } from '@portolan/snapshot';
import { bucketOf, dropFrom } from '../incremental/keyed-buckets.ts';
import type { ListenerStage } from './listener-stage.ts';
import type { PlanWork } from './plan-work.ts';
import { resolveRouteBucket, routeBucketKey, type RouteClaim } from './route-claims.ts';
import type { PlanPass, Stage, StageContext } from './stage.ts';

/**
 * Stage 4, routes: per (listener, host) bucket the oldest claim on each path wins, under the appliance's host
 * ownership rule. Keeps the claims per bucket and the routes each bucket produced (an incremental engine's cache: a
 * bucket is decided again only when a claim on it changes), and writes the routes that changed.
 */
export class RouteStage implements Stage {
  private readonly ctx: StageContext;
  private readonly listeners: ListenerStage;
  /** bucket key → Ingress key → that Ingress's claims in the bucket. */
  private readonly buckets = new Map<string, Map<string, RouteClaim[]>>();
  private readonly results = new Map<string, readonly Route[]>();

  constructor(ctx: StageContext, listeners: ListenerStage) {
    this.ctx = ctx;
    this.listeners = listeners;
  }

  run({ work }: PlanPass): void {
    for (const { key, prev, next } of work.claimChanges) {
      for (const c of prev.routes) {
        const bk = routeBucketKey(c.vs, c.host);
        dropFrom(this.buckets, bk, key);
        work.routeBuckets.add(bk);
      }
      for (const c of next.routes) {
        const bk = routeBucketKey(c.vs, c.host);
        const bucket = bucketOf(this.buckets, bk);
        bucket.set(key, [...(bucket.get(key) ?? []), c]);
        work.routeBuckets.add(bk);
      }
    }
    if (work.routeBuckets.size > 0) for (const bk of work.routeBuckets) this.decide(bk, work);
  }

  private decide(bk: string, work: PlanWork): void {
    const { profile, encoder, claims } = this.ctx;
    const vs = bk.slice(0, bk.indexOf('\u0000'));
    const r = resolveRouteBucket([...(this.buckets.get(bk)?.values() ?? [])].flat(), profile.hostOwnership);
    const keep = new Set(r.routes.map(routeSortKey));
    for (const old of this.results.get(bk) ?? []) {
      const k = routeSortKey(old);
      if (!keep.has(k)) encoder.removeRoute(vs, k);
    }
    if (this.listeners.listener(vs) !== undefined) for (const route of r.routes) encoder.upsertRoute(vs, route);
    if (r.routes.length === 0) this.results.delete(bk);
    else this.results.set(bk, r.routes);
    work.noteDecided(claims.setSource(`r${bk}`, r.uses, r.losses));
  }
}
