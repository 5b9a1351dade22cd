import type { JsonObject, ListenAddress, ListenProtocol, ObjectRef } from '@portolan/desired-state';
import type { ApplianceProfile } from './appliance-profile.ts';
import { listenerNameOf, type IngressIntent } from './ingress-intent.ts';
import { issue, type Issue } from './issue.ts';

/** Where an accepted Ingress is served, or why it is refused by the address rules. */
export type MemberOutcome =
  | {
      readonly ok: true;
      /** The listener its routes go on. */
      readonly vs: string;
      /** vTM-style redirect-only listener on the HTTP port it owns a share of, or null. */
      readonly redirectVs: string | null;
      /** HAProxy-style: the plain-HTTP listener that carries its per-route redirects, or null. */
      readonly redirectRoutesVs: string | null;
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

/**
 * Allocates the listeners of one address (an IP, or the default address) to the Ingresses that ask for it, in
 * creation order, so the outcome never depends on event order. Rules: the oldest accepted Ingress sets whether the
 * address is dedicated or shared; a dedicated address (vTM: the IP; LoadMaster: the ip:port) belongs to one
 * application (its copies in other clusters share it); one protocol per port; and seed 003's shared-address rules —
 * ssl-redirect and use-lets-encrypt need port 80 free of older plain-HTTP Ingresses, and once one is accepted no
 * newer Ingress may bind port 80. Cost: linear in the group's size, with tiny constants.
 */
export function allocateGroup(members: readonly IngressIntent[], profile: ApplianceProfile): GroupAllocation {
  const outcomes = new Map<string, MemberOutcome>();
  const ports = new Map<number, PortState>();
  const dedicatedOwner = new Map<string, IngressIntent>();
  let mode: { dedicated: boolean; by: IngressIntent } | null = null;
  let plain80: IngressIntent | null = null;
  let reserves80: IngressIntent | null = null;
  const vtmRules = profile.sharedRules === 'vtm';
  const http = profile.httpPort;
  for (const m of members) {
    const l = m.listener!;
    const dedicated = l.address.kind === 'dedicated';
    const refuse = (reason: string, message: string): void => void outcomes.set(m.key, { ok: false, issue: issue(reason, message) });
    if (mode !== null && mode.dedicated !== dedicated) {
      refuse('AddressModeConflict', `address ${l.group} is used as ${mode.dedicated ? 'dedicated' : 'shared'} by the older Ingress ${mode.by.app}`);
      continue;
    }
    const exclusiveKey = profile.exclusivity === 'address' ? '' : String(l.port);
    const owner = dedicatedOwner.get(exclusiveKey);
    if (dedicated && owner !== undefined && owner.app !== m.app) {
      refuse('AddressInUse', `address ${l.group}${exclusiveKey === '' ? '' : `:${exclusiveKey}`} is dedicated to the older Ingress ${owner.app}`);
      continue;
    }
    if (vtmRules && !dedicated && (l.sslRedirect || l.letsEncrypt) && plain80 !== null) {
      refuse('SharedAddressPort80InUse', `${l.sslRedirect ? 'ssl-redirect' : 'use-lets-encrypt'} needs port ${http} of shared address ${l.group}, which the older Ingress ${plain80.app} binds`);
      continue;
    }
    if (vtmRules && !dedicated && l.port === http && reserves80 !== null) {
      refuse('SharedAddressPort80Reserved', `port ${http} of shared address ${l.group} is reserved by the older Ingress ${reserves80.app} (ssl-redirect or use-lets-encrypt)`);
      continue;
    }
    const conflict = protocolConflict(ports, l.port, l.protocol) ?? (l.sslRedirect ? protocolConflict(ports, http, vtmRules ? REDIRECT : 'http') : null);
    if (conflict !== null) {
      refuse('ListenerProtocolConflict', `port ${conflict.port} of address ${l.group} is already ${conflict.protocol} for the older Ingress ${conflict.by.app}`);
      continue;
    }
    mode ??= { dedicated, by: m };
    if (dedicated && owner === undefined) dedicatedOwner.set(exclusiveKey, m);
    if (!dedicated && l.port === http) plain80 ??= m;
    if (!dedicated && (l.sslRedirect || l.letsEncrypt)) reserves80 ??= m;
    claim(ports, l.port, l.protocol, m, null);
    if (l.sslRedirect) claim(ports, http, vtmRules ? REDIRECT : 'http', m, vtmRules ? l.port : null);
    outcomes.set(m.key, {
      ok: true,
      vs: listenerNameOf(l.address, l.port),
      redirectVs: l.sslRedirect && vtmRules ? listenerNameOf(l.address, http) : null,
      redirectRoutesVs: l.sslRedirect && !vtmRules ? listenerNameOf(l.address, http) : null,
    });
  }
  return { outcomes, listeners: listenersOf(ports, mode?.dedicated ?? false) };
}

function protocolConflict(ports: Map<number, PortState>, port: number, protocol: PortState['protocol']): { port: number; protocol: string; by: IngressIntent } | null {
  const p = ports.get(port);
  return p !== undefined && p.protocol !== protocol ? { port, protocol: p.protocol, by: p.owners[0]! } : null;
}

function claim(ports: Map<number, PortState>, port: number, protocol: PortState['protocol'], m: IngressIntent, redirectTo: number | null): void {
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
