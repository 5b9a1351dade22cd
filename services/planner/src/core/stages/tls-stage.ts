import { bucketOf, dropFrom } from '../incremental/keyed-buckets.ts';
import type { PlanWork } from './plan-work.ts';
import { resolveTlsBucket, routeBucketKey, type TlsClaim } from './route-claims.ts';
import type { PlanPass, Stage, StageContext } from './stage.ts';

/**
 * Stage 6, TLS: per (listener, host) the oldest claim to serve a certificate wins, under the host ownership rule.
 * Keeps the claims, the winners, and the winners counted per listener and per certificate (an incremental engine's
 * cache: a bucket is decided again only when a claim on it changes, and a listener's certificate list is read
 * without walking its claims), and marks the listeners and certificates a new winner changes.
 */
export class TlsStage implements Stage {
  private readonly ctx: StageContext;
  /** bucket key → Ingress key → its claim. */
  private readonly buckets = new Map<string, Map<string, TlsClaim>>();
  /** bucket key → its winner. */
  private readonly wins = new Map<string, TlsClaim>();
  /** listener → Ingress key → host → certificate name, of the Ingress's winning claims. */
  private readonly winsByVs = new Map<string, Map<string, Map<string, string>>>();
  /** listener → certificate name → how many buckets it won there. */
  private readonly certCountByVs = new Map<string, Map<string, number>>();
  /** certificate name → bucket key → the winning claim. */
  private readonly winsByCert = new Map<string, Map<string, TlsClaim>>();

  constructor(ctx: StageContext) {
    this.ctx = ctx;
  }

  /** The winner of one (listener, host) bucket ('' = the listener's catch-all), or null. */
  winnerOf(vs: string, host: string): TlsClaim | null {
    return this.wins.get(routeBucketKey(vs, host)) ?? null;
  }

  /** Per Ingress, the hosts it won on a listener and the certificate of each; undefined when none. */
  winsOn(vs: string): ReadonlyMap<string, ReadonlyMap<string, string>> | undefined {
    return this.winsByVs.get(vs);
  }

  /** The certificates a listener serves. */
  certificatesOn(vs: string): Iterable<string> {
    return this.certCountByVs.get(vs)?.keys() ?? [];
  }

  /** The winning claims a certificate serves, by bucket; undefined when it serves none. */
  winsOf(certificate: string): ReadonlyMap<string, TlsClaim> | undefined {
    return this.winsByCert.get(certificate);
  }

  run({ work }: PlanPass): void {
    for (const { key, prev, next } of work.claimChanges) {
      for (const c of prev.tls) {
        const bk = routeBucketKey(c.vs, c.host);
        dropFrom(this.buckets, bk, key);
        work.tls.add(bk);
      }
      for (const c of next.tls) {
        const bk = routeBucketKey(c.vs, c.host);
        bucketOf(this.buckets, bk).set(key, c);
        work.tls.add(bk);
      }
    }
    if (work.tls.size > 0) for (const bk of work.tls) this.decide(bk, work);
  }

  private decide(bk: string, work: PlanWork): void {
    const r = resolveTlsBucket([...(this.buckets.get(bk)?.values() ?? [])], this.ctx.profile.hostOwnership);
    const prev = this.wins.get(bk) ?? null;
    if (tlsKey(prev) !== tlsKey(r.winner)) {
      if (prev !== null) this.count(bk, prev, -1, work);
      if (r.winner !== null) this.count(bk, r.winner, 1, work);
      if (r.winner === null) this.wins.delete(bk);
      else this.wins.set(bk, r.winner);
    }
    work.noteDecided(this.ctx.claims.setSource(`t${bk}`, [], r.losses));
  }

  private count(bk: string, c: TlsClaim, delta: 1 | -1, work: PlanWork): void {
    const name = c.certificate.name;
    const byIngress = bucketOf(this.winsByVs, c.vs);
    const hosts = byIngress.get(c.ingressKey) ?? new Map<string, string>();
    const counts = bucketOf(this.certCountByVs, c.vs);
    const wins = bucketOf(this.winsByCert, name);
    if (delta === 1) {
      byIngress.set(c.ingressKey, hosts.set(c.host, name));
      counts.set(name, (counts.get(name) ?? 0) + 1);
      wins.set(bk, c);
    } else {
      hosts.delete(c.host);
      if (hosts.size === 0) byIngress.delete(c.ingressKey);
      const n = (counts.get(name) ?? 0) - 1;
      if (n > 0) counts.set(name, n);
      else counts.delete(name);
      wins.delete(bk);
      if (wins.size === 0) this.winsByCert.delete(name);
    }
    work.vs.add(c.vs);
    work.certs.add(name);
  }
}

/** What identifies a TLS claim's win: a change of it rewrites the listener and certificates. */
function tlsKey(c: TlsClaim | null): string {
  return c === null ? '' : JSON.stringify([c.ingressKey, c.order, c.certificate]);
}
