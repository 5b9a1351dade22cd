import { issue, type Issue } from './issue.ts';

/**
 * Who may serve routes on a host (the appliance's `hostOwnership`). Kubernetes lets any namespace add paths to any
 * host, and the Ingress conformance suite expects that (`shared`); a platform team can stop one tenant from taking
 * another's traffic: `first-namespace` gives a host to the namespace whose Ingress claimed it first, `allow-list`
 * maps hosts (or `*.` suffixes) to the namespaces that may use them, and falls back to `first-namespace` for hosts
 * it does not list.
 */
export type HostOwnership =
  | { readonly mode: 'shared' }
  | { readonly mode: 'first-namespace' }
  | { readonly mode: 'allow-list'; readonly hosts: ReadonlyMap<string, readonly string[]> };

/** The default: every namespace may add routes to every host (visible as a Warning on both sides). */
export const SHARED_HOSTS: HostOwnership = { mode: 'shared' };

/** What ownership needs of a claim on a host. */
export interface OwnedClaim {
  readonly order: string;
  readonly ingressKey: string;
  readonly namespace: string;
  readonly app: string;
  readonly host: string;
}

/** A claim refused or noted by the ownership rule, reported as a Warning on its Ingress. */
export interface OwnershipNote {
  readonly ingressKey: string;
  readonly issue: Issue;
}

/**
 * Splits the claims on one host into those the policy lets compete and the refused ones, and notes every claim
 * that shares the host with another namespace (on both sides, so each tenant sees the other). The owner is the
 * namespace of the oldest claim (creation order), so the verdict never depends on event order.
 */
export function applyHostOwnership<C extends OwnedClaim>(
  claims: readonly C[],
  policy: HostOwnership,
): { eligible: C[]; notes: OwnershipNote[] } {
  if (claims.length === 0) return { eligible: [], notes: [] };
  let oldest = claims[0]!;
  for (const c of claims) if (c.order < oldest.order) oldest = c;
  const host = oldest.host;
  const listed = policy.mode === 'allow-list' ? allowedNamespaces(policy.hosts, host) : null;
  const allowed = (ns: string): boolean =>
    policy.mode === 'shared' ? true : listed !== null ? listed.includes(ns) : ns === oldest.namespace;
  const eligible: C[] = [];
  const notes: OwnershipNote[] = [];
  const shown = host || '*';
  for (const c of claims) {
    if (allowed(c.namespace)) {
      eligible.push(c);
      continue;
    }
    const why =
      listed !== null
        ? issue(
            'HostNotAllowed',
            `host ${shown} is reserved for namespace(s) ${listed.join(', ')} by the appliance's hostOwnership allow-list; this Ingress's routes on it are not served`,
          )
        : issue(
            'HostOwnedByNamespace',
            `host ${shown} belongs to namespace ${oldest.namespace} (the older Ingress ${oldest.app}); this Ingress's routes on it are not served`,
          );
    notes.push({ ingressKey: c.ingressKey, issue: why });
  }
  const namespaces = [...new Set(eligible.map((c) => c.namespace))].sort();
  if (namespaces.length > 1) {
    const owner = eligible.reduce((a, b) => (b.order < a.order ? b : a));
    for (const c of eligible) {
      const others = namespaces.filter((n) => n !== c.namespace);
      const message =
        c.namespace === owner.namespace
          ? `host ${shown} is shared: namespace(s) ${others.join(', ')} also serve routes on it`
          : `host ${shown} is shared: it was first claimed by namespace ${owner.namespace} (Ingress ${owner.app}); this Ingress adds routes to it`;
      notes.push({ ingressKey: c.ingressKey, issue: issue('HostSharedAcrossNamespaces', message) });
    }
  }
  return { eligible, notes };
}

/** The namespaces an allow-list gives a host: an exact entry first, else the longest matching `*.` suffix; null if unlisted. */
export function allowedNamespaces(
  hosts: ReadonlyMap<string, readonly string[]>,
  host: string,
): readonly string[] | null {
  const exact = hosts.get(host);
  if (exact !== undefined) return exact;
  let best: { suffix: string; namespaces: readonly string[] } | null = null;
  for (const [pattern, namespaces] of hosts) {
    if (!pattern.startsWith('*.')) continue;
    const suffix = pattern.slice(1);
    if ((host.endsWith(suffix) && host.length > suffix.length) || host === pattern) {
      if (best === null || suffix.length > best.suffix.length) best = { suffix, namespaces };
    }
  }
  return best?.namespaces ?? null;
}
