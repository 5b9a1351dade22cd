import type { JsonObject, ListenAddress, ListenProtocol, ObjectRef } from '@portolan/desired-state';
import type { ApplianceProfile } from '../translate/appliance-profile.ts';
import { listenerNameOf, type IngressIntent, type ListenerRequest } from '../translate/ingress-intent.ts';
import { issue, type Issue } from '../translate/issue.ts';

/** Where an accepted Ingress is served, or why it is refused by the address rules. */
export type MemberOutcome =
  | {
      readonly ok: true;
      /** The listener its routes go on. */
      readonly vs: string;
      /** vTM-style redirect-only listener on the HTTP port it owns a share of, or null. */
      readonly redirectVs: string | null;
      /**
       * The plain-HTTP listener that serves its routes too (an Ingress with TLS where the profile serves TLS
       * Ingresses over HTTP as well), each route a redirect when ssl-redirect is on and its host is a TLS host; or null.
       */
      readonly httpVs: string | null;
      /** Why it is not served over HTTP although its profile would serve it there (a Warning on it), or null. */
      readonly httpIssue: Issue | null;
    }
  | { readonly ok: false; readonly issue: Issue };

/** One listener of a group, before routes: everything but routes, certificates and the default pool. */
export interface ListenerSpec {
  readonly name: string;
  readonly address: ListenAddress;
  readonly port: number;
  readonly protocol: ListenProtocol;
  readonly owners: readonly ObjectRef[];
  readonly redirectToHttpsPort: number | null;
  readonly requestScript: string | null;
  readonly responseScript: string | null;
  readonly customization: JsonObject | null;
}

/** The result of allocating one address group. */
export interface GroupAllocation {
  readonly outcomes: ReadonlyMap<string, MemberOutcome>;
  readonly listeners: readonly ListenerSpec[];
}

/** Pseudo-protocol of a redirect-only listener, so nothing else can bind its port. */
const REDIRECT = 'redirect';

interface PortState {
  protocol: ListenProtocol | typeof REDIRECT;
  owners: IngressIntent[];
  redirectTo: number | null;
}

/** What allocation has decided so far for one address, in creation order. */
interface GroupState {
  readonly ports: Map<number, PortState>;
  readonly dedicatedOwner: Map<string, IngressIntent>;
  mode: { dedicated: boolean; by: IngressIntent } | null;
  plain80: IngressIntent | null;
  reserves80: IngressIntent | null;
}

/**
 * Allocates the listeners of one address (an IP, or the default address) to the Ingresses that ask for it, in
 * creation order, so the outcome never depends on event order. Rules: the oldest accepted Ingress sets whether the
 * address is dedicated or shared; a dedicated address (vTM: the IP; LoadMaster: the ip:port) belongs to one
 * application (its copies in other clusters share it); one protocol per port; and vTM's documented shared-address rules —
 * ssl-redirect and use-lets-encrypt need port 80 free of older plain-HTTP Ingresses, and once one is accepted no
 * newer Ingress may bind port 80. An Ingress also served over HTTP beside its HTTPS port binds port 80 too; when
 * these rules keep it off port 80, it is served over HTTPS only, with a warning. Cost: linear in the group's size.
 */
export function allocateGroup(members: readonly IngressIntent[], profile: ApplianceProfile): GroupAllocation {
  const outcomes = new Map<string, MemberOutcome>();
  const st: GroupState = { ports: new Map(), dedicatedOwner: new Map(), mode: null, plain80: null, reserves80: null };
  const vtmRules = profile.sharedRules === 'vtm';
  const http = profile.httpPort;
  for (const m of members) {
    const l = m.listener!;
    const dedicated = l.address.kind === 'dedicated';
    const redirectOnly = l.sslRedirect && vtmRules;
    const refusal = refusalOf(m, st, profile, redirectOnly);
    if (refusal !== null) {
      outcomes.set(m.key, { ok: false, issue: refusal });
      continue;
    }
    const httpIssue = !redirectOnly && servesHttpBeside(l, profile) ? httpPortProblem(m, st, profile) : null;
    const alsoHttp = !redirectOnly && servesHttpBeside(l, profile) && httpIssue === null;
    st.mode ??= { dedicated, by: m };
    if (dedicated)
      for (const k of exclusiveKeys(l, profile, alsoHttp)) if (!st.dedicatedOwner.has(k)) st.dedicatedOwner.set(k, m);
    if (!dedicated && (l.port === http || alsoHttp)) st.plain80 ??= m;
    if (!dedicated && (l.sslRedirect || l.letsEncrypt)) st.reserves80 ??= m;
    claim(st.ports, l.port, l.protocol, m, null);
    if (redirectOnly) claim(st.ports, http, REDIRECT, m, l.port);
    if (alsoHttp) claim(st.ports, http, 'http', m, null);
    outcomes.set(m.key, {
      ok: true,
      vs: listenerNameOf(l.address, l.port),
      redirectVs: redirectOnly ? listenerNameOf(l.address, http) : null,
      httpVs: alsoHttp ? listenerNameOf(l.address, http) : null,
      httpIssue,
    });
  }
  return { outcomes, listeners: listenersOf(st.ports, st.mode?.dedicated ?? false) };
}

/** Why an Ingress cannot have its own listener (and, vTM-style, its redirect listener) on this address, or null. */
function refusalOf(m: IngressIntent, st: GroupState, profile: ApplianceProfile, redirectOnly: boolean): Issue | null {
  const l = m.listener!;
  const http = profile.httpPort;
  const dedicated = l.address.kind === 'dedicated';
  const vtmRules = profile.sharedRules === 'vtm';
  if (st.mode !== null && st.mode.dedicated !== dedicated) {
    return issue(
      'AddressModeConflict',
      `address ${l.group} is used as ${st.mode.dedicated ? 'dedicated' : 'shared'} by the older Ingress ${st.mode.by.app}`,
    );
  }
  const taken = dedicatedElsewhere(m, st, exclusiveKeys(l, profile, false));
  if (taken !== null)
    return issue(
      'AddressInUse',
      `address ${l.group}${taken.key === '' ? '' : `:${taken.key}`} is dedicated to the older Ingress ${taken.by.app}`,
    );
  if (vtmRules && !dedicated && (l.sslRedirect || l.letsEncrypt) && st.plain80 !== null) {
    return issue(
      'SharedAddressPort80InUse',
      `${l.sslRedirect ? 'ssl-redirect' : 'use-lets-encrypt'} needs port ${http} of shared address ${l.group}, which the older Ingress ${st.plain80.app} binds`,
    );
  }
  if (vtmRules && !dedicated && l.port === http && st.reserves80 !== null) {
    return issue(
      'SharedAddressPort80Reserved',
      `port ${http} of shared address ${l.group} is reserved by the older Ingress ${st.reserves80.app} (ssl-redirect or use-lets-encrypt)`,
    );
  }
  const conflict =
    protocolConflict(st.ports, l.port, l.protocol) ??
    (redirectOnly ? protocolConflict(st.ports, http, REDIRECT) : null);
  return conflict === null
    ? null
    : issue(
        'ListenerProtocolConflict',
        `port ${conflict.port} of address ${l.group} is already ${conflict.protocol} for the older Ingress ${conflict.by.app}`,
      );
}

/** Why an Ingress served over HTTP beside its HTTPS port cannot have the HTTP port of its address, or null. */
function httpPortProblem(m: IngressIntent, st: GroupState, profile: ApplianceProfile): Issue | null {
  const l = m.listener!;
  const http = profile.httpPort;
  const served = `; the Ingress is served over HTTPS only`;
  const taken =
    l.address.kind === 'dedicated' ? dedicatedElsewhere(m, st, [exclusiveKeys(l, profile, true).at(-1)!]) : null;
  if (taken !== null)
    return issue(
      'HttpPortInUse',
      `address ${l.group}${taken.key === '' ? '' : `:${taken.key}`} is dedicated to the older Ingress ${taken.by.app}${served}`,
    );
  if (profile.sharedRules === 'vtm' && l.address.kind !== 'dedicated' && st.reserves80 !== null) {
    return issue(
      'HttpPortInUse',
      `port ${http} of shared address ${l.group} is reserved by the older Ingress ${st.reserves80.app} (ssl-redirect)${served}`,
    );
  }
  const conflict = protocolConflict(st.ports, http, 'http');
  return conflict === null
    ? null
    : issue(
        'HttpPortInUse',
        `port ${conflict.port} of address ${l.group} is ${conflict.protocol} for the older Ingress ${conflict.by.app}${served}`,
      );
}

/** The units of a dedicated address an Ingress takes: the IP (vTM), or each ip:port it binds (LoadMaster). */
function exclusiveKeys(l: ListenerRequest, profile: ApplianceProfile, alsoHttp: boolean): string[] {
  if (profile.exclusivity === 'address') return [''];
  return alsoHttp ? [String(l.port), String(profile.httpPort)] : [String(l.port)];
}

/** The first of `keys` dedicated to another application, with its owner; null when all are free or its own. */
function dedicatedElsewhere(
  m: IngressIntent,
  st: GroupState,
  keys: readonly string[],
): { key: string; by: IngressIntent } | null {
  if (m.listener!.address.kind !== 'dedicated') return null;
  for (const key of keys) {
    const by = st.dedicatedOwner.get(key);
    if (by !== undefined && by.app !== m.app) return { key, by };
  }
  return null;
}

/**
 * Whether an Ingress is served on the HTTP port beside its own: an HTTPS listener off the HTTP port, on a profile
 * that follows the Ingress specification (every rule over HTTP, TLS hosts over HTTPS as well).
 */
export function servesHttpBeside(l: ListenerRequest, profile: ApplianceProfile): boolean {
  return profile.tlsAlsoServesHttp && l.protocol === 'https' && l.port !== profile.httpPort;
}

function protocolConflict(
  ports: Map<number, PortState>,
  port: number,
  protocol: PortState['protocol'],
): { port: number; protocol: string; by: IngressIntent } | null {
  const p = ports.get(port);
  return p !== undefined && p.protocol !== protocol ? { port, protocol: p.protocol, by: p.owners[0]! } : null;
}

function claim(
  ports: Map<number, PortState>,
  port: number,
  protocol: PortState['protocol'],
  m: IngressIntent,
  redirectTo: number | null,
): void {
  const p = ports.get(port);
  if (p === undefined) ports.set(port, { protocol, owners: [m], redirectTo });
  else if (p.owners[p.owners.length - 1] !== m) p.owners.push(m);
}

function listenersOf(ports: Map<number, PortState>, dedicated: boolean): ListenerSpec[] {
  return [...ports.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([port, p]) => {
      const first = p.owners[0]!;
      const address = first.listener!.address;
      const scripted = dedicated && p.protocol !== REDIRECT ? first : null;
      return {
        name: listenerNameOf(address, port),
        address,
        port,
        protocol: p.protocol === REDIRECT ? 'http' : p.protocol,
        owners: p.owners.map((o) => o.ref),
        redirectToHttpsPort: p.protocol === REDIRECT ? p.redirectTo : null,
        requestScript: scripted?.requestScript ?? null,
        responseScript: scripted?.responseScript ?? null,
        customization: scripted?.vsCustomization ?? null,
      };
    });
}
