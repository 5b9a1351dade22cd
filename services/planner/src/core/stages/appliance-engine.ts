// One class on purpose: the incremental engine's phases (groups → claims → routes → defaults → TLS → virtual
// services → pools) share one set of indexes and one per-plan work list (plan-work.ts), and each phase reads what
// the previous one marked. Split across files they would need those mutable indexes passed around or exported,
// which is harder to keep correct than one class; every phase method stays short.
import type { ObjectRef, Route } from '@portolan/desired-state';
import { worldKeyString } from '@portolan/kube-model';
import { allocateGroup, type ListenerSpec, type MemberOutcome } from './allocate-listeners.ts';
import { servesCluster, type ApplianceProfile, type ClusterProfile } from '../translate/appliance-profile.ts';
import {
  asksAffinity,
  buildCertificate,
  buildPool,
  buildVirtualService,
  defaultCertificateOf,
  ingressConditions,
  poolMembers,
} from './assemble-parts.ts';
import { routeSortKey } from '@portolan/snapshot';
import { ClaimIndex } from '../incremental/claim-index.ts';
import { serviceKey, type DirtySet } from '../incremental/dirty-set.ts';
import type { IngressIntent, PoolSpec } from '../translate/ingress-intent.ts';
import { intentFor } from './plan-appliance.ts';
import { allocationKey, sameIssues, sameListener, sameOutcome, tlsKey } from './engine-equality.ts';
import { bucketOf, bucketOfSet, dropFrom } from '../incremental/keyed-buckets.ts';
import { PlanWork } from './plan-work.ts';
import { resolveMembers, type Resolution } from './resolve-members.ts';
import {
  claimsOf,
  NO_CLAIMS,
  resolveDefaultBackend,
  resolveRouteBucket,
  resolveTlsBucket,
  routeBucketKey,
  type Claims,
  type DefaultClaim,
  type RouteClaim,
  type TlsClaim,
} from './route-claims.ts';
import { SnapshotEncoder, type EncodedSnapshot } from '@portolan/snapshot';
import { CURRENT_LAYOUT, type SnapshotLayout } from '@portolan/snapshot';
import type { WorldView } from '../world/world-view.ts';

interface Group {
  members: IngressIntent[];
  outcomes: ReadonlyMap<string, MemberOutcome>;
  listeners: readonly ListenerSpec[];
}

/**
 * Incremental planning of one appliance (Ingress mode). State mirrors `planAppliance`'s stages, keyed so that an
 * event revisits only what depends on it: an endpoint change re-resolves the pools of that Service; an Ingress edit
 * re-claims its own routes (and re-allocates its address group only when its listener request changes); a contest
 * (route bucket, default backend, TLS host) is re-decided only when a claim on it changes. Output goes straight to a
 * SnapshotEncoder, so commit cost is the size of the change. Must always equal `planAppliance` (property-tested).
 */
export class ApplianceEngine {
  readonly profile: ApplianceProfile;
  readonly encoder: SnapshotEncoder;
  private readonly clusters: ReadonlyMap<string, ClusterProfile>;
  private readonly intents = new Map<string, IngressIntent>();
  private readonly refs = new Map<string, ObjectRef>();
  private readonly groups = new Map<string, Group>();
  private readonly outcomes = new Map<string, MemberOutcome>();
  private readonly claims = new Map<string, Claims>();
  private readonly listeners = new Map<string, ListenerSpec>();
  private readonly routeBuckets = new Map<string, Map<string, RouteClaim[]>>();
  private readonly routeResults = new Map<string, readonly Route[]>();
  private readonly defaultBuckets = new Map<string, Map<string, DefaultClaim>>();
  private readonly defaultPools = new Map<string, string>();
  private readonly tlsBuckets = new Map<string, Map<string, TlsClaim>>();
  private readonly tlsWins = new Map<string, TlsClaim>();
  private readonly tlsWinsByVs = new Map<string, Map<string, Map<string, string>>>();
  private readonly certCountByVs = new Map<string, Map<string, number>>();
  private readonly winsByCert = new Map<string, Map<string, TlsClaim>>();
  private readonly index = new ClaimIndex();
  private readonly specs = new Map<string, { spec: PoolSpec; refs: number }>();
  /** Per pool: the spec it was resolved with and its members per cluster. */
  private readonly resolutions = new Map<string, { spec: PoolSpec; readonly per: Map<string, Resolution> }>();
  private readonly poolsByService = new Map<string, Set<string>>();
  private readonly poolsByCluster = new Map<string, Set<string>>();
  private readonly work = new PlanWork();

  constructor(
    profile: ApplianceProfile,
    clusters: ReadonlyMap<string, ClusterProfile>,
    layout: SnapshotLayout = CURRENT_LAYOUT,
  ) {
    this.profile = profile;
    this.clusters = clusters;
    this.encoder = new SnapshotEncoder(profile.name, profile.driver, layout);
  }

  /** Whether a dirty set can change this appliance at all (cheap: lets the planner skip untouched appliances). */
  isAffected(dirty: DirtySet): boolean {
    if (this.encoder.root === null || dirty.ingresses.size > 0) return true;
    if (this.profile.backendMode === 'nodeport' && dirty.nodeClusters.size > 0) return true;
    for (const svc of dirty.services) if (this.poolsByService.has(svc)) return true;
    return false;
  }

  /** Applies what changed and commits: the new root, the new pieces, and whether the snapshot changed. */
  plan(world: WorldView, dirty: DirtySet): EncodedSnapshot & { readonly changed: boolean } {
    const w = this.work;
    w.clear();
    if (dirty.ingresses.size > 0) this.updateIntents(world, dirty, w);
    // Each phase is skipped when its list is empty: a for-of over a Set allocates an iterator even then, and an
    // endpoint change leaves all but the pool lists empty.
    if (w.groups.size > 0) for (const g of w.groups) this.reallocate(g, w);
    if (w.reclaim.size > 0) for (const key of w.reclaim) this.reclaim(key, w);
    if (w.routeBuckets.size > 0) for (const bk of w.routeBuckets) this.decideRoutes(bk, w);
    if (w.defaults.size > 0) for (const vs of w.defaults) this.decideDefault(vs, w);
    if (w.tls.size > 0) for (const bk of w.tls) this.decideTls(bk, w);
    if (w.vs.size > 0) for (const vs of w.vs) this.writeVirtualService(vs, w);
    if (w.certs.size > 0) for (const cert of w.certs) this.writeCertificate(cert);
    this.markReresolve(dirty, w);
    if (w.pools.size > 0) for (const pool of w.pools) this.writePool(world, pool, w);
    if (w.reresolve.size > 0)
      for (const pool of w.reresolve.keys()) if (!w.pools.has(pool)) this.writePool(world, pool, w);
    if (w.conditions.size > 0) for (const key of w.conditions) this.writeConditions(key);
    const out = this.encoder.commit();
    w.clear();
    return out;
  }

  private updateIntents(world: WorldView, dirty: DirtySet, w: PlanWork): void {
    for (const [key, id] of dirty.ingresses) {
      const cp = this.clusters.get(id.cluster);
      const next =
        cp !== undefined && servesCluster(this.profile, id.cluster)
          ? intentFor(world, this.profile, cp, id.namespace, id.name)
          : null;
      const prev = this.intents.get(key) ?? null;
      if (prev?.signature === next?.signature) continue;
      if (next === null) this.intents.delete(key);
      else {
        this.intents.set(key, next);
        this.refs.set(key, next.ref);
      }
      for (const p of prev?.pools ?? []) this.unrefSpec(p.name);
      for (const p of next?.pools ?? []) this.refSpec(p);
      w.conditions.add(key);
      w.reclaim.add(key);
      if (prev?.listener && next?.listener && allocationKey(prev) === allocationKey(next)) {
        const members = this.groups.get(prev.listener.group)!.members;
        members[members.indexOf(prev)] = next;
        continue;
      }
      if (prev?.listener) {
        const g = this.groups.get(prev.listener.group)!;
        g.members.splice(g.members.indexOf(prev), 1);
        w.groups.add(prev.listener.group);
      }
      if (next?.listener) {
        let g = this.groups.get(next.listener.group);
        if (g === undefined)
          this.groups.set(next.listener.group, (g = { members: [], outcomes: new Map(), listeners: [] }));
        g.members.splice(sortedIndex(g.members, next.order), 0, next);
        w.groups.add(next.listener.group);
      }
    }
  }

  private reallocate(name: string, w: PlanWork): void {
    const g = this.groups.get(name)!;
    const alloc = allocateGroup(g.members, this.profile);
    const changed = (key: string, next: MemberOutcome | undefined): void => {
      if (next === undefined) this.outcomes.delete(key);
      else this.outcomes.set(key, next);
      w.reclaim.add(key);
      w.conditions.add(key);
    };
    // Linear in the group, but only pointer and string-equality checks per member.
    for (const [key, next] of alloc.outcomes) if (!sameOutcome(g.outcomes.get(key), next)) changed(key, next);
    // An Ingress that left for another group gets its outcome there, whichever group this plan re-allocates first.
    for (const key of g.outcomes.keys())
      if (!alloc.outcomes.has(key) && (this.intents.get(key)?.listener?.group ?? name) === name)
        changed(key, undefined);
    const wanted = new Map(alloc.listeners.map((l) => [l.name, l] as const));
    for (const l of g.listeners) {
      if (wanted.has(l.name)) continue;
      this.listeners.delete(l.name);
      this.encoder.deleteVirtualService(l.name);
    }
    for (const l of alloc.listeners) {
      if (sameListener(this.listeners.get(l.name), l)) continue;
      if (!this.listeners.has(l.name)) {
        const { owners: _o, certificates: _c, routes: _r, ...header } = buildVirtualService(l, [], null, null, []);
        this.encoder.setVsHeader(header);
      }
      this.listeners.set(l.name, l);
      w.vs.add(l.name);
      w.owners.add(l.name);
    }
    g.outcomes = alloc.outcomes;
    g.listeners = alloc.listeners;
    if (g.members.length === 0) this.groups.delete(name);
  }

  private reclaim(key: string, w: PlanWork): void {
    const intent = this.intents.get(key);
    const outcome = this.outcomes.get(key);
    const prev = this.claims.get(key) ?? NO_CLAIMS;
    const next = intent !== undefined && outcome !== undefined ? claimsOf(intent, outcome) : NO_CLAIMS;
    for (const c of prev.routes) {
      const bk = routeBucketKey(c.vs, c.host);
      dropFrom(this.routeBuckets, bk, key);
      w.routeBuckets.add(bk);
    }
    for (const c of prev.defaults) {
      dropFrom(this.defaultBuckets, c.vs, key);
      w.defaults.add(c.vs);
    }
    for (const c of prev.tls) {
      const bk = routeBucketKey(c.vs, c.host);
      dropFrom(this.tlsBuckets, bk, key);
      w.tls.add(bk);
    }
    for (const c of next.routes) {
      const bk = routeBucketKey(c.vs, c.host);
      const bucket = bucketOf(this.routeBuckets, bk);
      bucket.set(key, [...(bucket.get(key) ?? []), c]);
      w.routeBuckets.add(bk);
    }
    for (const c of next.defaults) {
      bucketOf(this.defaultBuckets, c.vs).set(key, c);
      w.defaults.add(c.vs);
    }
    for (const c of next.tls) {
      const bk = routeBucketKey(c.vs, c.host);
      bucketOf(this.tlsBuckets, bk).set(key, c);
      w.tls.add(bk);
    }
    if (next === NO_CLAIMS) this.claims.delete(key);
    else this.claims.set(key, next);
  }

  private decideRoutes(bk: string, w: PlanWork): void {
    const vs = bk.slice(0, bk.indexOf('\u0000'));
    const r = resolveRouteBucket([...(this.routeBuckets.get(bk)?.values() ?? [])].flat(), this.profile.hostOwnership);
    const keep = new Set(r.routes.map(routeSortKey));
    for (const old of this.routeResults.get(bk) ?? []) {
      const k = routeSortKey(old);
      if (!keep.has(k)) this.encoder.removeRoute(vs, k);
    }
    if (this.listeners.has(vs)) for (const route of r.routes) this.encoder.upsertRoute(vs, route);
    if (r.routes.length === 0) this.routeResults.delete(bk);
    else this.routeResults.set(bk, r.routes);
    this.noteDecision(`r${bk}`, r.uses, r.losses, w);
  }

  private decideDefault(vs: string, w: PlanWork): void {
    const r = resolveDefaultBackend([...(this.defaultBuckets.get(vs)?.values() ?? [])]);
    if ((this.defaultPools.get(vs) ?? null) !== r.pool) {
      if (r.pool === null) this.defaultPools.delete(vs);
      else this.defaultPools.set(vs, r.pool);
      w.vs.add(vs);
    }
    this.noteDecision(`d${vs}`, r.uses, r.losses, w);
  }

  private decideTls(bk: string, w: PlanWork): void {
    const r = resolveTlsBucket([...(this.tlsBuckets.get(bk)?.values() ?? [])], this.profile.hostOwnership);
    const prev = this.tlsWins.get(bk) ?? null;
    if (tlsKey(prev) !== tlsKey(r.winner)) {
      if (prev !== null) this.countTlsWin(bk, prev, -1, w);
      if (r.winner !== null) this.countTlsWin(bk, r.winner, 1, w);
      if (r.winner === null) this.tlsWins.delete(bk);
      else this.tlsWins.set(bk, r.winner);
    }
    this.noteDecision(`t${bk}`, [], r.losses, w);
  }

  private countTlsWin(bk: string, c: TlsClaim, delta: 1 | -1, w: PlanWork): void {
    const name = c.certificate.name;
    const byIngress = bucketOf(this.tlsWinsByVs, c.vs);
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
    w.vs.add(c.vs);
    w.certs.add(name);
  }

  private noteDecision(
    source: string,
    uses: Parameters<ClaimIndex['setSource']>[1],
    losses: Parameters<ClaimIndex['setSource']>[2],
    w: PlanWork,
  ): void {
    const changed = this.index.setSource(source, uses, losses);
    for (const k of changed.ingresses) w.conditions.add(k);
    for (const p of changed.pools) w.pools.add(p);
  }

  private writeVirtualService(name: string, w: PlanWork): void {
    const l = this.listeners.get(name);
    if (l === undefined) return;
    const wins = this.tlsWinsByVs.get(name);
    const firstWinOf = (key: string): string | null => {
      const hosts = wins?.get(key);
      if (hosts === undefined) return null;
      let best: string | null = null;
      for (const h of hosts.keys()) if (best === null || h < best) best = h;
      return best === null ? null : hosts.get(best)!;
    };
    // No certificate won on this listener (plain HTTP, or TLS without usable Secrets): skip the walk over its owners.
    const defaultCert =
      wins === undefined || wins.size === 0
        ? null
        : defaultCertificateOf(
            l.owners,
            worldKeyString,
            this.tlsWins.get(routeBucketKey(name, '')) ?? null,
            firstWinOf,
          );
    const v = buildVirtualService(
      l,
      [],
      this.defaultPools.get(name) ?? null,
      defaultCert,
      this.certCountByVs.get(name)?.keys() ?? [],
    );
    const { owners, certificates, routes: _routes, ...header } = v;
    this.encoder.setVsHeader(header);
    if (w.owners.has(name)) this.encoder.setVsOwners(name, owners);
    this.encoder.setVsCertificates(name, certificates[0] ?? null, certificates.slice(1));
  }

  private writeCertificate(name: string): void {
    const wins = this.winsByCert.get(name);
    if (wins === undefined || wins.size === 0) this.encoder.deleteCertificate(name);
    else this.encoder.setCertificate(buildCertificate([...wins.values()]));
  }

  private markReresolve(dirty: DirtySet, w: PlanWork): void {
    if (dirty.services.size > 0)
      for (const svc of dirty.services) {
        const pools = this.poolsByService.get(svc);
        if (pools !== undefined) for (const pool of pools) w.markStale(pool, svc.slice(0, svc.indexOf('/')));
      }
    if (this.profile.backendMode !== 'nodeport' || dirty.nodeClusters.size === 0) return;
    for (const c of dirty.nodeClusters) for (const pool of this.poolsByCluster.get(c) ?? []) w.markStale(pool, c);
  }

  private writePool(world: WorldView, pool: string, w: PlanWork): void {
    const clusters = this.index.clustersOf(pool);
    const spec = this.specs.get(pool)?.spec;
    const held = this.resolutions.get(pool);
    let sameClusters = held !== undefined && spec !== undefined;
    if (held !== undefined) {
      // Deleting the current key while iterating a Map is well defined.
      for (const c of held.per.keys()) {
        if (spec !== undefined && clusters.includes(c)) continue;
        held.per.delete(c);
        this.unindexPool(pool, c, held.spec);
        sameClusters = false;
      }
    }
    if (spec === undefined || clusters.length === 0) {
      this.resolutions.delete(pool);
      this.encoder.deletePool(pool);
      return;
    }
    const per = held?.per ?? new Map<string, Resolution>();
    for (const c of clusters) {
      const prev = per.get(c);
      if (prev !== undefined && !w.isStale(pool, c)) continue;
      const r = resolveMembers(
        world,
        {
          cluster: c,
          namespace: spec.namespace,
          service: spec.service,
          port: spec.port,
          mode: this.profile.backendMode,
          weight: this.clusters.get(c)?.weight ?? 1,
          asksAffinity: asksAffinity(spec),
        },
        prev?.members,
      );
      if (prev === undefined || !sameIssues(prev.issues, r.issues))
        for (const k of this.index.usersOf(pool, c)) w.conditions.add(k);
      if (prev === undefined) {
        per.set(c, r);
        this.indexPool(pool, c, spec);
        sameClusters = false;
      } else Object.assign(prev, r); // only this engine holds it: the new object dies young instead of being kept
    }
    const sorted = per.size === 1 ? per : new Map([...per.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)));
    // The same spec object over the same clusters gives the same pool header: only the members can have changed.
    if (sameClusters && held!.spec === spec) this.encoder.setPoolMembers(pool, poolMembers(sorted));
    else this.encoder.setPool(buildPool(spec, this.profile, sorted));
    if (held !== undefined && held.per === sorted) held.spec = spec;
    else this.resolutions.set(pool, { spec, per: sorted });
  }

  private indexPool(pool: string, cluster: string, spec: PoolSpec): void {
    bucketOfSet(this.poolsByService, serviceKey(cluster, spec.namespace, spec.service)).add(pool);
    bucketOfSet(this.poolsByCluster, cluster).add(pool);
  }

  private unindexPool(pool: string, cluster: string, spec: PoolSpec): void {
    const svcPools = this.poolsByService.get(serviceKey(cluster, spec.namespace, spec.service));
    svcPools?.delete(pool);
    if (svcPools?.size === 0) this.poolsByService.delete(serviceKey(cluster, spec.namespace, spec.service));
    const clusterPools = this.poolsByCluster.get(cluster);
    clusterPools?.delete(pool);
    if (clusterPools?.size === 0) this.poolsByCluster.delete(cluster);
  }

  private writeConditions(key: string): void {
    const intent = this.intents.get(key);
    const ref = intent?.ref ?? this.refs.get(key);
    if (ref === undefined) return;
    if (intent === undefined) {
      this.encoder.setConditions(ref, []);
      this.refs.delete(key);
      return;
    }
    const uses = this.index.usesOf(key);
    const poolIssues = uses.flatMap((u) => this.resolutions.get(u.pool)?.per.get(u.cluster)?.issues ?? []);
    this.encoder.setConditions(
      ref,
      ingressConditions(intent, {
        outcome: this.outcomes.get(key) ?? null,
        losses: this.index.lossesOf(key),
        servesSomething: uses.length > 0,
        poolIssues,
      }),
    );
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

function sortedIndex(members: readonly IngressIntent[], order: string): number {
  let lo = 0;
  let hi = members.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (members[mid]!.order < order) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
