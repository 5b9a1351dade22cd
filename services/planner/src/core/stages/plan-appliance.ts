import type { DesiredState, ObjectCondition, Route, ServiceBinding, VirtualService } from '@portolan/desired-state';
import { compareCodeUnits } from '@portolan/desired-state';
import { worldKeyString, type TrimmedSecret } from '@portolan/kube-model';
import { allocateGroup, type ListenerSpec, type MemberOutcome } from './allocate-listeners.ts';
import {
  isNamespaceInScope,
  servesCluster,
  type ApplianceProfile,
  type ClusterProfile,
} from '../translate/appliance-profile.ts';
import {
  asksAffinity,
  buildCertificate,
  buildPool,
  buildVirtualService,
  defaultCertificateOf,
  ingressConditions,
} from './assemble-parts.ts';
import { canonicalizeDesiredState, sortMembers } from '@portolan/snapshot';
import { buildIntent, type IngressIntent, type PoolSpec } from '../translate/ingress-intent.ts';
import { issue, type Issue } from '../translate/issue.ts';
import { pickOldest } from './oldest-wins.ts';
import { resolveMembers, type Resolution } from './resolve-members.ts';
import {
  claimsOf,
  resolveDefaultBackend,
  resolveRouteBucket,
  resolveTlsBucket,
  routeBucketKey,
  type DefaultClaim,
  type RouteClaim,
  type TlsClaim,
} from './route-claims.ts';
import type { PoolUse } from '../incremental/claim-index.ts';
import { selectIngress } from '../translate/select-ingress.ts';
import {
  bindingConflict,
  buildBindingIntent,
  isBindingService,
  type BindingIntent,
} from '../translate/service-binding.ts';
import type { WorldView } from '../world/world-view.ts';

/** The clusters an appliance plans for, with their fleet-config profile, in name order. */
export function servedClusters(
  world: WorldView,
  profile: ApplianceProfile,
  clusters: ReadonlyMap<string, ClusterProfile>,
): ClusterProfile[] {
  return world.clusterNames().flatMap((name) => {
    const c = clusters.get(name);
    return c !== undefined && servesCluster(profile, name) ? [c] : [];
  });
}

/** The intent of one Ingress for this appliance, or null when the appliance does not serve it. */
export function intentFor(
  world: WorldView,
  profile: ApplianceProfile,
  cluster: ClusterProfile,
  namespace: string,
  name: string,
): IngressIntent | null {
  const ingress = world.ingress(cluster.name, namespace, name);
  if (ingress === undefined) return null;
  // An Ingress a fleet-config change dropped stays selected while the safety rule holds that removal.
  const held = world.selectionHeldFor(profile.name, cluster.name, namespace, name);
  const inScope = isNamespaceInScope(namespace, cluster.namespaces);
  const selection = inScope
    ? selectIngress(ingress, world.ingressClasses(cluster.name), profile)
    : { selected: false as const };
  if (!selection.selected && held === null) return null;
  const selectionWarning = selection.selected
    ? selection.warning
    : issue('RemovalHeld', `${held}; approve with portolan approve ${profile.name} --reason "..."`);
  // What this appliance refused (its own check, narrowed by bisection) is left out of its plan until it changes: a
  // refused Secret reads as unusable material, a refused Ingress is rejected.
  const secrets = (ns: string, n: string): TrimmedSecret | undefined => {
    const secret = world.secret(cluster.name, ns, n);
    const refused = secret === undefined ? null : world.refusalOf(profile.name, cluster.name, 'Secret', ns, n);
    return refused === null
      ? secret
      : { ...secret!, tls: { ok: false, reason: `appliance ${profile.name} refused it: ${refused}` } };
  };
  const refused = world.refusalOf(profile.name, cluster.name, 'Ingress', namespace, name);
  const refusal =
    refused === null
      ? null
      : issue('RefusedByAppliance', `appliance ${profile.name} refused this Ingress's configuration: ${refused}`);
  return buildIntent(ingress, cluster.name, profile, secrets, selectionWarning, refusal);
}

/**
 * Plans one appliance from scratch: select → validate/annotate (intents) → allocate listeners → route, default
 * backend and TLS conflicts → resolve pools → assemble, sorted canonically. The correctness oracle and baseline
 * for the incremental Planner, which must always produce the same DesiredState.
 */
export function planAppliance(
  world: WorldView,
  profile: ApplianceProfile,
  clusters: ReadonlyMap<string, ClusterProfile>,
): DesiredState {
  const served = servedClusters(world, profile, clusters);
  if (profile.mode === 'service') return planBindings(world, profile, served);
  const intents: IngressIntent[] = [];
  for (const c of served)
    for (const ing of world.ingresses(c.name)) {
      const intent = intentFor(world, profile, c, ing.metadata.namespace, ing.metadata.name);
      if (intent !== null) intents.push(intent);
    }
  const outcomes = new Map<string, MemberOutcome>();
  const listeners: ListenerSpec[] = [];
  const groups = new Map<string, IngressIntent[]>();
  for (const i of intents)
    if (i.listener !== null) groups.set(i.listener.group, [...(groups.get(i.listener.group) ?? []), i]);
  for (const members of groups.values()) {
    const alloc = allocateGroup(
      members.sort((a, b) => compareCodeUnits(a.order, b.order)),
      profile,
    );
    alloc.outcomes.forEach((o, k) => outcomes.set(k, o));
    listeners.push(...alloc.listeners);
  }
  const routeBuckets = new Map<string, RouteClaim[]>();
  const defaultBuckets = new Map<string, DefaultClaim[]>();
  const tlsBuckets = new Map<string, TlsClaim[]>();
  const push = <T>(m: Map<string, T[]>, k: string, v: T): void => void m.set(k, [...(m.get(k) ?? []), v]);
  for (const i of intents) {
    const o = outcomes.get(i.key);
    if (o === undefined) continue;
    const claims = claimsOf(i, o);
    claims.routes.forEach((c) => push(routeBuckets, routeBucketKey(c.vs, c.host), c));
    claims.defaults.forEach((c) => push(defaultBuckets, c.vs, c));
    claims.tls.forEach((c) => push(tlsBuckets, routeBucketKey(c.vs, c.host), c));
  }
  const losses = new Map<string, Issue[]>();
  const lose = (k: string, i: Issue): void => void losses.set(k, [...(losses.get(k) ?? []), i]);
  const uses: PoolUse[] = [];
  const routesByVs = new Map<string, Route[]>();
  for (const claims of routeBuckets.values()) {
    const r = resolveRouteBucket(claims, profile.hostOwnership);
    routesByVs.set(claims[0]!.vs, [...(routesByVs.get(claims[0]!.vs) ?? []), ...r.routes]);
    uses.push(...r.uses);
    r.losses.forEach((l) => lose(l.ingressKey, l.issue));
  }
  const defaultPools = new Map<string, string | null>();
  for (const [vs, claims] of defaultBuckets) {
    const r = resolveDefaultBackend(claims);
    defaultPools.set(vs, r.pool);
    uses.push(...r.uses);
    r.losses.forEach((l) => lose(l.ingressKey, l.issue));
  }
  const tlsWins: TlsClaim[] = [];
  for (const claims of tlsBuckets.values()) {
    const r = resolveTlsBucket(claims, profile.hostOwnership);
    if (r.winner !== null) tlsWins.push(r.winner);
    r.losses.forEach((l) => lose(l.ingressKey, l.issue));
  }
  const specs = new Map<string, PoolSpec>();
  for (const i of intents) for (const p of i.pools) specs.set(p.name, p);
  const poolClusters = new Map<string, Set<string>>();
  for (const u of uses) poolClusters.set(u.pool, (poolClusters.get(u.pool) ?? new Set()).add(u.cluster));
  const resolutions = new Map<string, Resolution>();
  const weight = (cluster: string): number => clusters.get(cluster)?.weight ?? 1;
  const pools = [...poolClusters.entries()].map(([name, cs]) => {
    const spec = specs.get(name)!;
    const per = new Map<string, Resolution>();
    for (const cluster of [...cs].sort(compareCodeUnits)) {
      const r = resolveMembers(world, {
        cluster,
        namespace: spec.namespace,
        service: spec.service,
        port: spec.port,
        mode: profile.backendMode,
        weight: weight(cluster),
        asksAffinity: asksAffinity(spec),
      });
      per.set(cluster, r);
      resolutions.set(`${name}\u0000${cluster}`, r);
    }
    return buildPool(spec, profile, per);
  });
  const conditions: ObjectCondition[] = intents.flatMap((i) => {
    const mine = uses.filter((u) => u.ingressKey === i.key);
    const poolIssues = mine.flatMap((u) => resolutions.get(`${u.pool}\u0000${u.cluster}`)?.issues ?? []);
    return ingressConditions(i, {
      outcome: outcomes.get(i.key) ?? null,
      losses: losses.get(i.key) ?? [],
      servesSomething: mine.length > 0,
      poolIssues,
    });
  });
  const winsByVs = new Map<string, TlsClaim[]>();
  for (const w of tlsWins) push(winsByVs, w.vs, w);
  const virtualServices: VirtualService[] = listeners.map((l) => {
    const wins = winsByVs.get(l.name) ?? [];
    const firstWinOf = (key: string): string | null =>
      wins.filter((w) => w.ingressKey === key).sort((a, b) => compareCodeUnits(a.host, b.host))[0]?.certificate.name ??
      null;
    const defaultCert = defaultCertificateOf(
      l.owners,
      worldKeyString,
      wins.find((w) => w.host === '') ?? null,
      firstWinOf,
    );
    return buildVirtualService(
      l,
      routesByVs.get(l.name) ?? [],
      defaultPools.get(l.name) ?? null,
      defaultCert,
      wins.map((w) => w.certificate.name),
    );
  });
  const certWins = new Map<string, TlsClaim[]>();
  for (const w of tlsWins) push(certWins, w.certificate.name, w);
  const certificates = [...certWins.values()].map(buildCertificate);
  return canonicalizeDesiredState({
    appliance: profile.name,
    driver: profile.driver,
    virtualServices,
    pools,
    certificates,
    bindings: [],
    conditions,
  });
}

/** LoadMaster Service mode from scratch: annotated Services feed pre-existing Virtual Services (as LoadMaster documents it). */
function planBindings(world: WorldView, profile: ApplianceProfile, served: readonly ClusterProfile[]): DesiredState {
  const intents: BindingIntent[] = [];
  const weights = new Map(served.map((c) => [c.name, c.weight] as const));
  for (const c of served)
    for (const svc of world.services(c.name)) {
      if (isBindingService(svc) && isNamespaceInScope(svc.metadata.namespace, c.namespaces))
        intents.push(buildBindingIntent(svc, c.name));
    }
  const byTarget = new Map<string, BindingIntent[]>();
  for (const i of intents) if (i.target !== null) byTarget.set(i.target, [...(byTarget.get(i.target) ?? []), i]);
  const bindings: ServiceBinding[] = [];
  const outcome = new Map<string, { ok: boolean; issues: Issue[] }>();
  for (const [target, claims] of byTarget) {
    const r = pickOldest(claims, (a, b) => a.app === b.app && a.port === b.port)!;
    const members = [r.winner, ...r.merged].flatMap((i) => {
      const res = resolveMembers(world, {
        cluster: i.ref.cluster,
        namespace: i.ref.namespace,
        service: i.ref.name,
        port: i.port!,
        mode: profile.backendMode,
        weight: weights.get(i.ref.cluster) ?? 1,
        asksAffinity: false,
      });
      outcome.set(i.key, { ok: true, issues: [...res.issues] });
      return res.members;
    });
    r.losers.forEach((l) => outcome.set(l.key, { ok: false, issues: [bindingConflict(r.winner)] }));
    bindings.push({ target, service: r.winner.ref, members: sortMembers(members) });
  }
  const conditions = intents.flatMap((i) => bindingConditions(i, outcome.get(i.key) ?? null));
  return canonicalizeDesiredState({
    appliance: profile.name,
    driver: profile.driver,
    virtualServices: [],
    pools: [],
    certificates: [],
    bindings,
    conditions,
  });
}

/** Conditions of an opted-in Service in Service mode. */
export function bindingConditions(
  i: BindingIntent,
  o: { ok: boolean; issues: readonly Issue[] } | null,
): ObjectCondition[] {
  const c = (type: ObjectCondition['type'], x: Issue): ObjectCondition => ({
    object: i.ref,
    type,
    reason: x.reason,
    message: x.message,
  });
  const head =
    i.errors.length > 0
      ? i.errors.map((e) => c('Rejected', e))
      : o !== null && !o.ok
        ? o.issues.map((e) => c('Rejected', e))
        : [c('Accepted', { reason: 'Bound', message: `feeds Virtual Service ${i.target}` })];
  const tail = [...i.warnings, ...(o?.ok === true ? o.issues : [])].map((w) => c('Warning', w));
  return [...head, ...tail];
}
