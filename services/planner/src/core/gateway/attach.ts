import { cond, type JudgedListener } from './listeners.ts';
import { intersectHostnames } from './hostnames.ts';
import type { ReferenceGrants } from './reference-grants.ts';
import {
  GATEWAY_GROUP,
  routeKind,
  type GatewayCondition,
  type GatewayInput,
  type HttpRouteInput,
  type ParentReference,
} from './gateway-types.ts';

/** A Gateway this controller manages, with its listeners judged. */
export interface ManagedGateway {
  readonly gateway: GatewayInput;
  readonly listeners: readonly JudgedListener[];
}

/** Where a route attached on one parent: the listener and the hostnames it serves there. */
export interface Attachment {
  readonly gateway: GatewayInput;
  readonly listener: string;
  readonly hostnames: readonly string[];
}

/** A route's status on one parent it names that this controller manages. */
export interface ParentStatus {
  readonly parentRef: ParentReference;
  readonly conditions: readonly GatewayCondition[];
  readonly attachments: readonly Attachment[];
}

/** What the attachment needs to know of the cluster besides Gateways and grants. */
export interface AttachContext {
  readonly gateways: ReadonlyMap<string, ManagedGateway>;
  readonly grants: ReferenceGrants;
  readonly namespaceLabels: (namespace: string) => Readonly<Record<string, string>>;
  readonly serviceExists: (namespace: string, name: string) => boolean;
}

/**
 * Attaches an HTTPRoute to the parents it names, as the specification says: a parent is a Gateway this controller
 * manages (others are left to their own controllers: no status is written for them); the listeners considered are
 * those the reference's sectionName and port select; a listener takes the route when it is attachable, allows the
 * route's kind and namespace, and shares a hostname with it. The parent's `Accepted` names why not
 * (NoMatchingParent, NotAllowedByListeners, NoMatchingListenerHostname); `ResolvedRefs` judges the backends
 * (InvalidKind, RefNotPermitted, BackendNotFound). A route with unresolved backends still attaches: requests for
 * those backends are answered 500, as the specification asks.
 */
export function attachHttpRoute(route: HttpRouteInput, ctx: AttachContext): ParentStatus[] {
  const refs = resolvedRefs(route, ctx);
  const out: ParentStatus[] = [];
  for (const parentRef of route.parentRefs) {
    if (parentRef.group !== GATEWAY_GROUP || parentRef.kind !== 'Gateway') continue;
    const ns = parentRef.namespace === '' ? route.namespace : parentRef.namespace;
    const managed = ctx.gateways.get(`${ns}/${parentRef.name}`);
    if (managed === undefined) continue;
    const { accepted, attachments } = accept(route, parentRef, managed, ctx);
    out.push({ parentRef, conditions: [accepted, refs], attachments });
  }
  return out;
}

function accept(
  route: HttpRouteInput,
  ref: ParentReference,
  managed: ManagedGateway,
  ctx: AttachContext,
): { accepted: GatewayCondition; attachments: Attachment[] } {
  const selected = managed.listeners.filter(
    (l) =>
      (ref.sectionName === '' || l.listener.name === ref.sectionName) &&
      (ref.port === 0 || l.listener.port === ref.port),
  );
  if (selected.length === 0)
    return { accepted: refused('NoMatchingParent', `no listener matches ${describeRef(ref)}`), attachments: [] };
  const gw = managed.gateway;
  const allowed = selected.filter(
    (l) => l.attachable && allows(l, routeKind(route), gw.namespace, route.namespace, ctx),
  );
  if (allowed.length === 0)
    return {
      accepted: refused('NotAllowedByListeners', `no listener of ${describeRef(ref)} allows this route`),
      attachments: [],
    };
  const attachments = allowed.flatMap((l): Attachment[] => {
    const hostnames = intersectHostnames(l.listener.hostname, route.hostnames);
    return hostnames.length === 0 ? [] : [{ gateway: gw, listener: l.listener.name, hostnames }];
  });
  if (attachments.length === 0)
    return {
      accepted: refused(
        'NoMatchingListenerHostname',
        `no listener of ${describeRef(ref)} serves the route's hostnames`,
      ),
      attachments,
    };
  return { accepted: cond('Accepted', 'True', 'Accepted', 'Route accepted'), attachments };
}

function allows(
  l: JudgedListener,
  kind: string,
  gatewayNamespace: string,
  routeNamespace: string,
  ctx: AttachContext,
): boolean {
  if (!l.supportedKinds.includes(kind)) return false;
  const a = l.listener.allowedRoutes;
  if (a.from === 'All') return true;
  if (a.from === 'Same') return gatewayNamespace === routeNamespace;
  const labels = ctx.namespaceLabels(routeNamespace);
  return Object.entries(a.selector).every(([k, v]) => labels[k] === v);
}

function resolvedRefs(route: HttpRouteInput, ctx: AttachContext): GatewayCondition {
  for (const rule of route.rules)
    for (const b of rule.backendRefs) {
      const ns = b.namespace === '' ? route.namespace : b.namespace;
      if (b.group !== '' || b.kind !== 'Service')
        return cond('ResolvedRefs', 'False', 'InvalidKind', `backend ${b.group}/${b.kind} ${b.name} is not a Service`);
      const from = { group: GATEWAY_GROUP, kind: routeKind(route), namespace: route.namespace };
      if (!ctx.grants.permits(from, { ...b, namespace: ns }))
        return cond(
          'ResolvedRefs',
          'False',
          'RefNotPermitted',
          `no ReferenceGrant in ${ns} lets this route use Service ${b.name}`,
        );
      if (!ctx.serviceExists(ns, b.name))
        return cond('ResolvedRefs', 'False', 'BackendNotFound', `Service ${ns}/${b.name} does not exist`);
    }
  return cond('ResolvedRefs', 'True', 'ResolvedRefs', 'All references resolved');
}

function refused(reason: string, message: string): GatewayCondition {
  return cond('Accepted', 'False', reason, message);
}

function describeRef(ref: ParentReference): string {
  const section = ref.sectionName === '' ? '' : `, listener ${ref.sectionName}`;
  const port = ref.port === 0 ? '' : `, port ${ref.port}`;
  return `Gateway ${ref.name}${section}${port}`;
}

/**
 * `attachedRoutes` of every listener: the routes accepted on it, whatever their backends (the specification counts
 * successful attachments), each route once however many of its parentRefs pick the listener. `statuses` holds one
 * entry per route. Keyed `namespace/gateway/listener`.
 */
export function attachedRouteCounts(statuses: readonly (readonly ParentStatus[])[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const perRoute of statuses) {
    const listeners = new Set<string>();
    for (const s of perRoute)
      for (const a of s.attachments) listeners.add(`${a.gateway.namespace}/${a.gateway.name}/${a.listener}`);
    for (const key of listeners) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}
