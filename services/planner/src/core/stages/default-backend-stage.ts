import { bucketOf, dropFrom } from '../incremental/keyed-buckets.ts';
import type { PlanWork } from './plan-work.ts';
import { resolveDefaultBackend, type DefaultClaim } from './route-claims.ts';
import type { PlanPass, Stage, StageContext } from './stage.ts';

/**
 * Stage 5, default backends: per listener the oldest claim on its default backend wins. Keeps the claims and the
 * winning pool per listener (an incremental engine's cache), and marks the listeners whose default pool changed.
 */
export class DefaultBackendStage implements Stage {
  private readonly ctx: StageContext;
  /** listener → Ingress key → its claim. */
  private readonly buckets = new Map<string, Map<string, DefaultClaim>>();
  private readonly pools = new Map<string, string>();

  constructor(ctx: StageContext) {
    this.ctx = ctx;
  }

  /** The pool serving what no route matches on a listener, or null. */
  defaultPoolOf(vs: string): string | null {
    return this.pools.get(vs) ?? null;
  }

  run({ work }: PlanPass): void {
    for (const { key, prev, next } of work.claimChanges) {
      for (const c of prev.defaults) {
        dropFrom(this.buckets, c.vs, key);
        work.defaults.add(c.vs);
      }
      for (const c of next.defaults) {
        bucketOf(this.buckets, c.vs).set(key, c);
        work.defaults.add(c.vs);
      }
    }
    if (work.defaults.size > 0) for (const vs of work.defaults) this.decide(vs, work);
  }

  private decide(vs: string, work: PlanWork): void {
    const r = resolveDefaultBackend([...(this.buckets.get(vs)?.values() ?? [])]);
    if ((this.pools.get(vs) ?? null) !== r.pool) {
      if (r.pool === null) this.pools.delete(vs);
      else this.pools.set(vs, r.pool);
      work.vs.add(vs);
    }
    work.noteDecided(this.ctx.claims.setSource(`d${vs}`, r.uses, r.losses));
  }
}
