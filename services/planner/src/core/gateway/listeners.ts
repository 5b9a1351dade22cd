import {
  GATEWAY_GROUP,
  type GatewayCondition,
  type GatewayInput,
  type ListenerInput,
  type ObjectReference,
} from './gateway-types.ts';
import type { ReferenceGrants } from './reference-grants.ts';

/** Route kinds a listener protocol can carry (what Portolan implements of each). */
const ROUTE_KINDS: Readonly<Record<string, readonly string[]>> = {
  HTTP: ['HTTPRoute'],
  HTTPS: ['HTTPRoute'],
  TLS: ['TLSRoute'],
};

/** Why a certificate Secret cannot be served ('' when it can): missing, not kubernetes.io/tls, unusable material. */
export type SecretCheck = (namespace: string, name: string) => string;

/** One listener as judged: its conditions, the route kinds it takes, and whether routes may attach to it. */
export interface JudgedListener {
  readonly listener: ListenerInput;
  readonly conditions: readonly GatewayCondition[];
  readonly supportedKinds: readonly string[];
  /** Accepted, references resolved and not conflicted: it is programmed. */
  readonly usable: boolean;
  /**
   * Accepted and not conflicted: routes attach (and count in attachedRoutes) even while its references do not
   * resolve, as the specification asks; only a usable listener serves them.
   */
  readonly attachable: boolean;
}

/**
 * Judges every listener of a Gateway as the specification's listener conditions say: `Accepted` (UnsupportedProtocol
 * for TCP and UDP, and TLS other than Passthrough), `ResolvedRefs` (InvalidCertificateRef, RefNotPermitted for a
 * certificate in another namespace without a ReferenceGrant, InvalidRouteKinds), `Conflicted` (ProtocolConflict
 * when one port carries protocols that cannot share it, HostnameConflict when two listeners of one port and
 * protocol name the same hostname) and `Programmed`.
 */
export function judgeListeners(gateway: GatewayInput, grants: ReferenceGrants, secret: SecretCheck): JudgedListener[] {
  const conflicts = findConflicts(gateway.listeners);
  return gateway.listeners.map((l) => {
    const accepted = acceptance(l);
    const refs = resolveRefs(gateway.namespace, l, grants, secret);
    const conflict = conflicts.get(l.name) ?? null;
    const usable = accepted.status === 'True' && refs.condition.status === 'True' && conflict === null;
    const conditions: GatewayCondition[] = [
      accepted,
      refs.condition,
      conflict === null
        ? cond('Conflicted', 'False', 'NoConflicts', 'No conflicts')
        : cond('Conflicted', 'True', conflict.reason, conflict.message),
      usable
        ? cond('Programmed', 'True', 'Programmed', 'Programmed')
        : cond('Programmed', 'False', 'Invalid', 'The listener is not programmed: see its other conditions'),
    ];
    const attachable = accepted.status === 'True' && conflict === null;
    return { listener: l, conditions, supportedKinds: refs.kinds, usable, attachable };
  });
}

function acceptance(l: ListenerInput): GatewayCondition {
  if (l.protocol !== 'HTTP' && l.protocol !== 'HTTPS' && l.protocol !== 'TLS')
    return cond('Accepted', 'False', 'UnsupportedProtocol', `protocol ${l.protocol} is not supported`);
  if (l.protocol === 'TLS' && l.tls?.mode !== 'Passthrough')
    return cond('Accepted', 'False', 'UnsupportedProtocol', 'TLS listeners are supported in Passthrough mode only');
  return cond('Accepted', 'True', 'Accepted', 'Listener accepted');
}

function resolveRefs(
  namespace: string,
  l: ListenerInput,
  grants: ReferenceGrants,
  secret: SecretCheck,
): { condition: GatewayCondition; kinds: string[] } {
  const possible = ROUTE_KINDS[l.protocol] ?? [];
  const asked = l.allowedRoutes.kinds;
  const kinds = asked.length === 0 ? [...possible] : asked.filter((k) => isGatewayKind(k, possible)).map((k) => k.kind);
  if (asked.length > 0 && kinds.length < asked.length) {
    const bad = asked.filter((k) => !isGatewayKind(k, possible)).map((k) => `${k.group}/${k.kind}`);
    return {
      condition: cond('ResolvedRefs', 'False', 'InvalidRouteKinds', `unsupported kinds: ${bad.join(', ')}`),
      kinds,
    };
  }
  if (l.protocol === 'HTTPS' && l.tls?.mode === 'Terminate')
    for (const ref of l.tls.certificateRefs) {
      const problem = certificateProblem(namespace, ref, grants, secret);
      if (problem !== null) return { condition: problem, kinds };
    }
  return { condition: cond('ResolvedRefs', 'True', 'ResolvedRefs', 'All references resolved'), kinds };
}

function isGatewayKind(k: { group: string; kind: string }, possible: readonly string[]): boolean {
  return k.group === GATEWAY_GROUP && possible.includes(k.kind);
}

function certificateProblem(
  namespace: string,
  ref: ObjectReference,
  grants: ReferenceGrants,
  secret: SecretCheck,
): GatewayCondition | null {
  const ns = ref.namespace === '' ? namespace : ref.namespace;
  if (ref.group !== '' || ref.kind !== 'Secret')
    return cond('ResolvedRefs', 'False', 'InvalidCertificateRef', `${ref.group}/${ref.kind} is not a Secret`);
  if (
    ns !== namespace &&
    !grants.permits({ group: GATEWAY_GROUP, kind: 'Gateway', namespace }, { ...ref, namespace: ns })
  )
    return cond(
      'ResolvedRefs',
      'False',
      'RefNotPermitted',
      `no ReferenceGrant in ${ns} lets this Gateway use Secret ${ref.name}`,
    );
  const why = secret(ns, ref.name);
  return why === '' ? null : cond('ResolvedRefs', 'False', 'InvalidCertificateRef', `Secret ${ns}/${ref.name}: ${why}`);
}

/** Protocols that can share a port: HTTPS and TLS passthrough are told apart by SNI; HTTP shares only with HTTP. */
function compatible(a: string, b: string): boolean {
  return a === b || (a === 'HTTPS' && b === 'TLS') || (a === 'TLS' && b === 'HTTPS');
}

function findConflicts(listeners: readonly ListenerInput[]): Map<string, { reason: string; message: string }> {
  const out = new Map<string, { reason: string; message: string }>();
  for (const a of listeners)
    for (const b of listeners) {
      if (a === b || a.port !== b.port) continue;
      if (!compatible(a.protocol, b.protocol))
        out.set(a.name, {
          reason: 'ProtocolConflict',
          message: `port ${a.port} is also ${b.protocol} on listener ${b.name}`,
        });
      else if (a.protocol === b.protocol && a.hostname === b.hostname && !out.has(a.name))
        out.set(a.name, {
          reason: 'HostnameConflict',
          message: `listener ${b.name} serves the same hostname "${a.hostname}" on port ${a.port}`,
        });
    }
  return out;
}

export function cond(
  type: string,
  status: GatewayCondition['status'],
  reason: string,
  message: string,
): GatewayCondition {
  return { type, status, reason, message };
}
