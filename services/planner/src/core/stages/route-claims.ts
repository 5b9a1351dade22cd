import type { Certificate, ObjectRef, PathMatch, Route } from '@portolan/desired-state';
import type { MemberOutcome } from './allocate-listeners.ts';
import { isTlsHost, type IngressIntent } from '../translate/ingress-intent.ts';
import { issue } from '../translate/issue.ts';
import type { Loss, PoolUse } from '../incremental/claim-index.ts';
import { applyHostOwnership, SHARED_HOSTS, type HostOwnership } from '../translate/host-ownership.ts';
import { pickOldest, type Claim } from './oldest-wins.ts';

/** An Ingress's claim on one (listener, host, path, match). */
export interface RouteClaim extends Claim {
  readonly ingressKey: string;
  readonly ref: ObjectRef;
  /** The tenant: host ownership and sharing are judged by namespace. */
  readonly namespace: string;
  readonly app: string;
  readonly cluster: string;
  readonly vs: string;
  readonly host: string;
  readonly path: string;
  readonly match: PathMatch;
  readonly pool: string;
  readonly redirectToHttpsPort: number | null;
}

/** An Ingress's claim on a listener's default backend. */
export interface DefaultClaim extends Claim {
  readonly ingressKey: string;
  readonly app: string;
  readonly cluster: string;
  readonly vs: string;
  readonly pool: string;
}

/** An Ingress's claim to serve a certificate for one host ('' = any) on a listener. */
export interface TlsClaim extends Claim {
  readonly ingressKey: string;
  readonly namespace: string;
  readonly app: string;
  readonly vs: string;
  readonly host: string;
  readonly certificate: Certificate;
}

/** Everything one accepted Ingress claims. */
export interface Claims {
  readonly routes: readonly RouteClaim[];
  readonly defaults: readonly DefaultClaim[];
  readonly tls: readonly TlsClaim[];
}

export const NO_CLAIMS: Claims = { routes: [], defaults: [], tls: [] };

/** Route bucket key: routes compete within one listener and host. */
export function routeBucketKey(vs: string, host: string): string {
  return `${vs}\u0000${host}`;
}

/** The claims of an Ingress the address rules accepted. */
export function claimsOf(intent: IngressIntent, outcome: MemberOutcome): Claims {
  if (!outcome.ok) return NO_CLAIMS;
  const base = {
    ingressKey: intent.key,
    order: intent.order,
    app: intent.app,
    cluster: intent.ref.cluster,
    namespace: intent.ref.namespace,
  };
  const routes: RouteClaim[] = intent.routes.map((r) => ({
    ...base,
    ref: intent.ref,
    vs: outcome.vs,
    ...r,
    redirectToHttpsPort: null,
  }));
  const defaults: DefaultClaim[] =
    intent.defaultPool === null ? [] : [{ ...base, vs: outcome.vs, pool: intent.defaultPool }];
  if (outcome.httpVs !== null) {
    // Every rule is served over HTTP too; ssl-redirect turns only the TLS hosts' rules into redirects to the HTTPS port.
    const { port, sslRedirect } = intent.listener!;
    for (const r of intent.routes) {
      const redirect = sslRedirect && isTlsHost(intent.tlsHosts, r.host);
      routes.push({ ...base, ref: intent.ref, vs: outcome.httpVs, ...r, redirectToHttpsPort: redirect ? port : null });
    }
    // A default backend answers any host, TLS ones included: with ssl-redirect on it stays on HTTPS only.
    if (intent.defaultPool !== null && !sslRedirect)
      defaults.push({ ...base, vs: outcome.httpVs, pool: intent.defaultPool });
  }
  const tls =
    intent.listener!.protocol !== 'https'
      ? []
      : intent.tls.flatMap((t) =>
          t.hosts.map((host) => ({
            ingressKey: intent.key,
            namespace: intent.ref.namespace,
            order: intent.order,
            app: intent.app,
            vs: outcome.vs,
            host,
            certificate: t.certificate,
          })),
        );
  return { routes, defaults, tls: dedupeTls(tls) };
}

/** One Ingress may list a host under two TLS entries: its first entry serves it. */
function dedupeTls(claims: TlsClaim[]): TlsClaim[] {
  const seen = new Set<string>();
  const out: TlsClaim[] = [];
  for (const c of claims) {
    if (seen.has(c.host)) continue;
    seen.add(c.host);
    out.push(c);
  }
  return out;
}

/**
 * Resolves one route bucket (listener, host): the host-ownership rule first decides which namespaces may serve it
 * (and notes a host shared across namespaces on both sides), then per (path, match) the oldest claim wins and equal
 * backends merge.
 */
export function resolveRouteBucket(
  all: readonly RouteClaim[],
  ownership: HostOwnership = SHARED_HOSTS,
): { routes: Route[]; uses: PoolUse[]; losses: Loss[] } {
  const { eligible: claims, notes } = applyHostOwnership(all, ownership);
  const byPath = new Map<string, RouteClaim[]>();
  for (const c of claims) {
    const k = `${c.path}\u0000${c.match}`;
    const list = byPath.get(k);
    if (list === undefined) byPath.set(k, [c]);
    else list.push(c);
  }
  const routes: Route[] = [];
  const uses: PoolUse[] = [];
  const losses: Loss[] = [...notes];
  for (const list of byPath.values()) {
    const r = pickOldest(list, (a, b) => a.pool === b.pool && a.redirectToHttpsPort === b.redirectToHttpsPort)!;
    const w = r.winner;
    routes.push({
      host: w.host,
      path: w.path,
      match: w.match,
      pool: w.pool,
      source: w.ref,
      ...(w.redirectToHttpsPort === null ? {} : { redirectToHttpsPort: w.redirectToHttpsPort }),
    });
    for (const c of [w, ...r.merged]) uses.push({ pool: c.pool, cluster: c.cluster, ingressKey: c.ingressKey });
    for (const c of r.losers) {
      losses.push({
        ingressKey: c.ingressKey,
        issue: issue(
          'RouteConflict',
          `${c.host || '*'}${c.path} (${c.match}) on listener ${c.vs} is served by the older Ingress ${w.app} in cluster ${w.cluster}`,
        ),
      });
    }
  }
  return { routes, uses, losses };
}

/** Resolves a listener's default backend: the oldest claim wins; the same pool merges. */
export function resolveDefaultBackend(claims: readonly DefaultClaim[]): {
  pool: string | null;
  uses: PoolUse[];
  losses: Loss[];
} {
  const r = pickOldest(claims, (a, b) => a.pool === b.pool);
  if (r === null) return { pool: null, uses: [], losses: [] };
  return {
    pool: r.winner.pool,
    uses: [r.winner, ...r.merged].map((c) => ({ pool: c.pool, cluster: c.cluster, ingressKey: c.ingressKey })),
    losses: r.losers.map((c) => ({
      ingressKey: c.ingressKey,
      issue: issue(
        'DefaultBackendConflict',
        `the default backend of listener ${c.vs} is the older Ingress ${r.winner.app}'s in cluster ${r.winner.cluster}`,
      ),
    })),
  };
}

/** Resolves who serves TLS for one (listener, host): the oldest claim wins (as ingress-nginx does); the same certificate merges. */
export function resolveTlsBucket(
  all: readonly TlsClaim[],
  ownership: HostOwnership = SHARED_HOSTS,
): { winner: TlsClaim | null; losses: Loss[] } {
  // Sharing is noted on the route bucket; here only who may present a certificate for the host counts.
  const claims = ownership.mode === 'shared' ? all : applyHostOwnership(all, ownership).eligible;
  const r = pickOldest(claims, (a, b) => a.certificate.name === b.certificate.name);
  if (r === null) return { winner: null, losses: [] };
  return {
    winner: r.winner,
    losses: r.losers.map((c) => ({
      ingressKey: c.ingressKey,
      issue: issue(
        'TlsHostConflict',
        `TLS for ${c.host || 'any host'} on listener ${c.vs} uses the certificate of the older Ingress ${r.winner.app}`,
      ),
    })),
  };
}
