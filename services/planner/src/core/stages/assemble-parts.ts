import type {
  Certificate,
  ObjectCondition,
  ObjectRef,
  Pool,
  PoolMember,
  Route,
  VirtualService,
} from '@portolan/desired-state';
import { compareCodeUnits } from '@portolan/desired-state';
import type { MemberOutcome, ListenerSpec } from './allocate-listeners.ts';
import type { ApplianceProfile } from '../translate/appliance-profile.ts';
import { orderCertificates, sortMembers, sortRefs } from '@portolan/snapshot';
import type { IngressIntent, PoolSpec } from '../translate/ingress-intent.ts';
import type { Issue } from '../translate/issue.ts';
import type { Resolution } from './resolve-members.ts';
import type { TlsClaim } from './route-claims.ts';

/** Builds a pool from its spec and the per-cluster resolutions of the clusters that use it. */
export function buildPool(
  spec: PoolSpec,
  profile: ApplianceProfile,
  perCluster: ReadonlyMap<string, Resolution>,
): Pool {
  const services: ObjectRef[] = [];
  for (const cluster of perCluster.keys())
    services.push({ cluster, kind: 'Service', namespace: spec.namespace, name: spec.service });
  return {
    name: spec.name,
    members: poolMembers(perCluster),
    monitor: spec.settings.monitor ?? profile.defaultMonitor,
    persistence: spec.settings.persistence,
    tlsToBackend: spec.settings.tlsToBackend,
    customization: spec.settings.customization,
    services: services.length === 1 ? services : sortRefs(services),
  };
}

/** A pool's members in canonical order from its per-cluster resolutions (one cluster's list is used as is, no copy). */
export function poolMembers(perCluster: ReadonlyMap<string, Resolution>): readonly PoolMember[] {
  if (perCluster.size === 1) for (const r of perCluster.values()) return r.members;
  const members: PoolMember[] = [];
  for (const r of perCluster.values()) members.push(...r.members);
  return sortMembers(members);
}

/** Whether a pool asks for persistence or a monitor (the vTM integration's documented NodePort warning). */
export function asksAffinity(spec: PoolSpec): boolean {
  return spec.settings.monitor !== null || spec.settings.persistence !== null;
}

/** A virtual service from its listener spec and its resolved routes, default pool and certificates. */
export function buildVirtualService(
  l: ListenerSpec,
  routes: readonly Route[],
  defaultPool: string | null,
  defaultCertificate: string | null,
  certificates: Iterable<string>,
): VirtualService {
  return {
    name: l.name,
    address: l.address,
    port: l.port,
    protocol: l.protocol,
    owners: l.owners,
    certificates: l.protocol === 'https' ? orderCertificates(defaultCertificate, certificates) : [],
    routes,
    defaultPool: l.redirectToHttpsPort === null ? defaultPool : null,
    redirectToHttpsPort: l.redirectToHttpsPort,
    requestScript: l.requestScript,
    responseScript: l.responseScript,
    customization: l.customization,
  };
}

/**
 * A listener's default certificate: the one serving "any host" if an Ingress offers it, else the winning
 * certificate of its oldest owner that has one — so a newer Ingress never changes what non-SNI clients see.
 */
export function defaultCertificateOf(
  owners: readonly ObjectRef[],
  ownerKey: (r: ObjectRef) => string,
  anyHostWinner: TlsClaim | null,
  firstWinOf: (ingressKey: string) => string | null,
): string | null {
  if (anyHostWinner !== null) return anyHostWinner.certificate.name;
  for (const o of owners) {
    const won = firstWinOf(ownerKey(o));
    if (won !== null) return won;
  }
  return null;
}

/** A certificate with the hosts it won across listeners (from the oldest winning claim for that Secret). */
export function buildCertificate(wins: readonly TlsClaim[]): Certificate {
  let first = wins[0]!;
  for (const w of wins) if (w.order < first.order) first = w;
  const hosts = [...new Set(wins.map((w) => w.host))].sort(compareCodeUnits);
  return { ...first.certificate, hosts };
}

/** What the conditions of one Ingress depend on beyond its intent. */
export interface ConditionInputs {
  readonly outcome: MemberOutcome | null;
  /** Claims it lost (routes, default backend, TLS hosts). */
  readonly losses: readonly Issue[];
  /** Whether at least one of its claims won or merged. */
  readonly servesSomething: boolean;
  /** Issues resolving the pools it uses, in its cluster. */
  readonly poolIssues: readonly Issue[];
}

/** The conditions of one Ingress: Accepted or Rejected (with every reason), then warnings, sorted and deduplicated. */
export function ingressConditions(intent: IngressIntent, inputs: ConditionInputs): ObjectCondition[] {
  const out: ObjectCondition[] = [];
  const add = (type: ObjectCondition['type'], i: Issue): void =>
    void out.push({ object: intent.ref, type, reason: i.reason, message: i.message });
  if (intent.errors.length > 0) intent.errors.forEach((e) => add('Rejected', e));
  else if (inputs.outcome !== null && !inputs.outcome.ok) add('Rejected', inputs.outcome.issue);
  else if (!inputs.servesSomething)
    add('Rejected', {
      reason: 'AllRoutesConflict',
      message: 'every route of this Ingress is served by older Ingresses',
    });
  else if (inputs.outcome !== null)
    add('Accepted', { reason: 'Planned', message: `planned on listener ${inputs.outcome.vs}` });
  const httpIssue = inputs.outcome?.ok === true ? inputs.outcome.httpIssue : null;
  for (const w of [
    ...intent.warnings,
    ...inputs.losses,
    ...inputs.poolIssues,
    ...(httpIssue === null ? [] : [httpIssue]),
  ])
    add('Warning', w);
  const seen = new Set<string>();
  return out
    .filter((c) => {
      const k = `${c.type}\u0000${c.reason}\u0000${c.message}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    })
    .sort((a, b) =>
      compareCodeUnits(`${a.type}\u0000${a.reason}\u0000${a.message}`, `${b.type}\u0000${b.reason}\u0000${b.message}`),
    );
}
