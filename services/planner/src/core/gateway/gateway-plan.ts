import type {
  Certificate,
  DriverKind,
  ObjectCondition,
  ObjectRef,
  Route,
  VirtualService,
} from '@portolan/desired-state';
import {
  attachedRouteCounts,
  attachHttpRoute,
  type AttachContext,
  type ManagedGateway,
  type ParentStatus,
} from './attach.ts';
import { classCondition, gatewayConditions, gatewayOf, routeConditions } from './gateway-status.ts';
import { cond, judgeListeners, type JudgedListener, type SecretCheck } from './listeners.ts';
import { compareEntries, routeEntries, type RouteEntry } from './precedence.ts';
import { ReferenceGrants } from './reference-grants.ts';
import { translateFilters, unsupportedBackends, unsupportedMatchFeature } from './route-filters.ts';
import {
  routeKind,
  type GatewayClassInput,
  type GatewayInput,
  type HttpRouteInput,
  type HttpRouteRule,
  type ReferenceGrantInput,
} from './gateway-types.ts';

/** One cluster's Gateway API objects and what the translation asks of the rest of the world. */
export interface GatewayPlanInput {
  readonly cluster: string;
  readonly driver: DriverKind;
  /** GatewayClass controllerName values this appliance answers. */
  readonly controllers: readonly string[];
  readonly classes: readonly GatewayClassInput[];
  readonly gateways: readonly GatewayInput[];
  readonly routes: readonly HttpRouteInput[];
  /** TLSRoutes, read as routes of kind TLSRoute (backendRefs only; the first rule serves). */
  readonly tlsRoutes: readonly HttpRouteInput[];
  readonly grants: readonly ReferenceGrantInput[];
  readonly namespaceLabels: AttachContext['namespaceLabels'];
  readonly serviceExists: AttachContext['serviceExists'];
  readonly secretProblem: SecretCheck;
  /** The keyed fingerprint of a usable TLS Secret ('' when there is none). */
  readonly secretFingerprint: (namespace: string, name: string) => string;
  /** Addresses for Gateways that ask for none; empty: they take the appliance's default address. */
  readonly addressPool: readonly string[];
  /** Why the appliance refused this route (its driver could not write it), or null. */
  readonly refusalOf: (namespace: string, name: string) => string | null;
  /** Whether an Ingress virtual service holds this address ('default' or an IP) and port. */
  readonly portTaken: (address: string, port: number) => boolean;
}

/** A pool an HTTPRoute rule sends to: its usable backends with their weights. */
export interface GatewayPoolSpec {
  readonly name: string;
  readonly backends: readonly {
    readonly namespace: string;
    readonly service: string;
    readonly port: number;
    readonly weight: number;
  }[];
}

/** What one cluster's Gateway API objects put on one appliance. */
export interface GatewayPlan {
  readonly virtualServices: readonly VirtualService[];
  readonly pools: readonly GatewayPoolSpec[];
  readonly certificates: readonly Certificate[];
  readonly conditions: readonly ObjectCondition[];
}

/** Names of what the Gateway API puts on an appliance: apart from Ingress names (which never start with `gw~`). */
const vsName = (address: string, port: number): string => `gw~${address}~${port}`;
const poolName = (cluster: string, route: HttpRouteInput, rule: number): string =>
  `gw~${cluster}~${route.namespace}~${route.name}~${rule}`;
const certificateName = (cluster: string, namespace: string, name: string): string =>
  `gw~${cluster}~${namespace}~${name}`;

/** A listener port of a Gateway that won its address and port, with the listeners on it. */
interface PortClaim {
  readonly address: string;
  readonly port: number;
  readonly gateway: GatewayInput;
  readonly listeners: JudgedListener[];
}

/**
 * Translates one cluster's Gateway API objects for one appliance: the Gateways of classes whose controllerName the
 * appliance answers, their listeners as virtual services (one per address and port), the HTTPRoutes attached to
 * them as routes in the specification's precedence, each rule's backends as one weighted pool, and the conditions
 * of every object considered. An address and port belong to one API: a Gateway listener on a port an Ingress
 * virtual service holds, or that an older Gateway holds, is not accepted (`PortUnavailable`). Pure.
 */
export function planGateways(input: GatewayPlanInput): GatewayPlan {
  const ours = input.classes.filter((c) => input.controllers.includes(c.controllerName));
  const classes = new Map(ours.map((c) => [c.name, c.controllerName] as const));
  const grants = new ReferenceGrants(input.grants);
  const conditions: ObjectCondition[] = ours.map((c) => classCondition(input.cluster, c));
  const claims = new Map<string, PortClaim>();
  const managed = new Map<string, ManagedGateway>();
  const gateways = input.gateways
    .filter((g) => classes.has(g.gatewayClassName))
    .sort((a, b) => compareAge(a, b) || compareText(`${a.namespace}/${a.name}`, `${b.namespace}/${b.name}`));
  const addresses = assignAddresses(input.cluster, gateways, input.addressPool);
  for (const gw of gateways) {
    const address = addresses.get(gw) ?? 'default';
    const judged = judgeListeners(gw, grants, input.secretProblem).map((l) =>
      gw.parametersRef === true ? notProgrammed(l) : claimPort(gw, address, l, claims, input),
    );
    managed.set(`${gw.namespace}/${gw.name}`, { gateway: gw, listeners: judged });
  }
  const ctx: AttachContext = {
    gateways: managed,
    grants,
    namespaceLabels: input.namespaceLabels,
    serviceExists: input.serviceExists,
  };
  const entries = new Map<string, { entry: RouteEntry; route: Route }[]>();
  const pools: GatewayPoolSpec[] = [];
  const attached: ParentStatus[][] = [];
  for (const route of [...input.routes, ...input.tlsRoutes]) {
    const statuses = attachHttpRoute(route, ctx);
    if (statuses.length === 0) continue;
    const translated = translateRoute(input, route, grants);
    const controllerOf = (s: ParentStatus): string => classes.get(gatewayOf(managed, route, s).gatewayClassName) ?? '';
    conditions.push(...routeConditions(input.cluster, route, statuses, translated.refusal, controllerOf));
    if (translated.refusal !== null) continue;
    attached.push(statuses);
    pools.push(...translated.pools);
    for (const s of statuses)
      for (const a of s.attachments) {
        const claim = claimOf(claims, a.gateway, a.listener);
        if (claim === undefined) continue;
        const list = entries.get(vsName(claim.address, claim.port)) ?? [];
        for (const entry of routeEntries(route, a))
          if (routeKind(route) === 'HTTPRoute' || entry.ruleIndex === 0)
            list.push({ entry, route: translated.route(entry, a.listener) });
        entries.set(vsName(claim.address, claim.port), list);
      }
  }
  const counts = attachedRouteCounts(attached);
  for (const { gateway: gw, listeners } of managed.values())
    conditions.push(...gatewayConditions(input.cluster, gw, listeners, counts));
  return {
    virtualServices: [...claims.values()].map((c) => virtualService(input.cluster, c, entries)),
    pools,
    certificates: certificates(input, claims),
    conditions,
  };
}

/** A listener of a Gateway that is not accepted as a whole: routes neither attach nor are served. */
function notProgrammed(l: JudgedListener): JudgedListener {
  const conditions = l.conditions.map((c) =>
    c.type === 'Programmed' ? cond('Programmed', 'False', 'Invalid', 'the Gateway is not accepted') : c,
  );
  return { ...l, usable: false, attachable: false, conditions };
}

/** Gives the listener its address and port, or marks it PortUnavailable when another holds them. */
function claimPort(
  gw: GatewayInput,
  address: string,
  l: JudgedListener,
  claims: Map<string, PortClaim>,
  input: GatewayPlanInput,
): JudgedListener {
  const key = vsName(address, l.listener.port);
  const held = claims.get(key);
  const taken = input.portTaken(address, l.listener.port);
  if (taken || (held !== undefined && held.gateway !== gw)) {
    const why = taken ? 'an Ingress' : `Gateway ${held!.gateway.namespace}/${held!.gateway.name}`;
    const message = `port ${l.listener.port} on address ${address} is held by ${why}`;
    return {
      ...l,
      usable: false,
      attachable: false,
      conditions: [
        cond('Accepted', 'False', 'PortUnavailable', message),
        ...l.conditions.filter((c) => c.type !== 'Accepted' && c.type !== 'Programmed'),
        cond('Programmed', 'False', 'Invalid', message),
      ],
    };
  }
  if (!l.usable) return l;
  const claim = held ?? { address, port: l.listener.port, gateway: gw, listeners: [] };
  claim.listeners.push(l);
  claims.set(key, claim);
  return l;
}

/**
 * Each Gateway's address: the first it asks for in spec.addresses, else one of the pool's, chosen by a hash of
 * its identity and probing onward past addresses already given (older Gateways choose first), so a Gateway keeps
 * its address while others come and go unless it had to move past one. None left (or no pool): the default.
 */
function assignAddresses(
  cluster: string,
  gateways: readonly GatewayInput[],
  pool: readonly string[],
): Map<GatewayInput, string> {
  const out = new Map<GatewayInput, string>();
  const taken = new Set<string>();
  for (const gw of gateways) {
    const asked = gw.addresses?.[0];
    if (asked !== undefined) {
      out.set(gw, asked);
      taken.add(asked);
    }
  }
  for (const gw of gateways) {
    if (out.has(gw) || pool.length === 0) continue;
    const start = fnv1a(`${cluster}/${gw.namespace}/${gw.name}`) % pool.length;
    for (let i = 0; i < pool.length; i++) {
      const candidate = pool[(start + i) % pool.length]!;
      if (taken.has(candidate)) continue;
      out.set(gw, candidate);
      taken.add(candidate);
      break;
    }
  }
  return out;
}

/** 32-bit FNV-1a of a string's UTF-16 code units (stable across runs and machines). */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

function claimOf(claims: Map<string, PortClaim>, gw: GatewayInput, listener: string): PortClaim | undefined {
  for (const c of claims.values())
    if (c.gateway === gw && c.listeners.some((l) => l.listener.name === listener)) return c;
  return undefined;
}

interface TranslatedRoute {
  readonly refusal: string | null;
  readonly pools: readonly GatewayPoolSpec[];
  readonly route: (entry: RouteEntry, listener: string) => Route;
}

/** The route's rules for this driver: a pool per rule with usable backends, filters, or why the driver refuses. */
function translateRoute(input: GatewayPlanInput, route: HttpRouteInput, grants: ReferenceGrants): TranslatedRoute {
  const refusedBy = input.refusalOf(route.namespace, route.name);
  if (refusedBy !== null) return refused(`refused by the appliance: ${refusedBy}`);
  const source: ObjectRef = {
    cluster: input.cluster,
    kind: routeKind(route),
    namespace: route.namespace,
    name: route.name,
  };
  const pools: GatewayPoolSpec[] = [];
  const perRule: { pool: string; filters: ReturnType<typeof translateFilters> }[] = [];
  for (const [i, rule] of route.rules.entries()) {
    for (const m of rule.matches) {
      const missing = unsupportedMatchFeature(input.driver, m);
      if (missing !== null) return refused(`${missing} are not supported by the ${input.driver} driver`);
    }
    const weighted = unsupportedBackends(input.driver, rule);
    if (weighted !== null) return refused(weighted);
    const filters = translateFilters(input.driver, rule);
    if (!filters.ok) return refused(filters.message);
    const backends = usableBackends(input, route, rule, grants);
    const name = backends.length === 0 ? '' : poolName(input.cluster, route, i);
    if (name !== '') pools.push({ name, backends });
    perRule.push({ pool: name, filters });
  }
  return {
    refusal: null,
    pools,
    route: (entry, listener) => {
      const r = perRule[entry.ruleIndex]!;
      const via = { rule: entry.ruleIndex, listener };
      const m = entry.match;
      const match = m.path.type === 'Exact' ? 'Exact' : m.path.type === 'RegularExpression' ? 'Regex' : 'Prefix';
      const redirect = r.filters.ok && r.filters.filters?.redirect !== undefined;
      // A TLSRoute routes by SNI alone: a route per hostname, no path.
      if (source.kind === 'TLSRoute')
        return { host: entry.hostname, path: '', match: 'Prefix', pool: r.pool, source, via };
      return {
        host: entry.hostname,
        path: m.path.value,
        match,
        pool: redirect ? '' : r.pool,
        source,
        via,
        ...(m.headers.length > 0 ? { headers: m.headers.map(valueMatch) } : {}),
        ...(m.queryParams.length > 0 ? { queryParams: m.queryParams.map(valueMatch) } : {}),
        ...(m.method !== '' ? { method: m.method.toUpperCase() } : {}),
        ...(r.filters.ok && r.filters.filters !== undefined ? { filters: r.filters.filters } : {}),
        ...(r.pool === '' && !redirect ? { fixedStatus: 500 } : {}),
      };
    },
  };
}

function refused(message: string): TranslatedRoute {
  return { refusal: message, pools: [], route: () => ({}) as Route };
}

const valueMatch = (v: { type: string; name: string; value: string }) => ({
  name: v.name,
  type: v.type === 'RegularExpression' ? ('Regex' as const) : ('Exact' as const),
  value: v.value,
});

/** The rule's backends that resolve (a Service, permitted, existing) and carry weight. */
function usableBackends(
  input: GatewayPlanInput,
  route: HttpRouteInput,
  rule: HttpRouteRule,
  grants: ReferenceGrants,
): GatewayPoolSpec['backends'] {
  const from = { group: 'gateway.networking.k8s.io', kind: routeKind(route), namespace: route.namespace };
  return rule.backendRefs
    .filter((b) => b.weight > 0 && b.group === '' && b.kind === 'Service')
    .map((b) => ({ b, namespace: b.namespace === '' ? route.namespace : b.namespace }))
    .filter(({ b, namespace }) => grants.permits(from, { ...b, namespace }) && input.serviceExists(namespace, b.name))
    .map(({ b, namespace }) => ({ namespace, service: b.name, port: b.port, weight: b.weight }));
}

function virtualService(
  cluster: string,
  claim: PortClaim,
  entries: ReadonlyMap<string, readonly { entry: RouteEntry; route: Route }[]>,
): VirtualService {
  const name = vsName(claim.address, claim.port);
  const sorted = [...(entries.get(name) ?? [])].sort((a, b) => compareEntries(a.entry, b.entry));
  const https = claim.listeners.some((l) => l.listener.protocol === 'HTTPS');
  const passthrough = claim.listeners.some((l) => l.listener.protocol === 'TLS');
  const gw = claim.gateway;
  return {
    name,
    address: claim.address === 'default' ? { kind: 'default' } : { kind: 'dedicated', ip: claim.address },
    port: claim.port,
    protocol: passthrough ? 'tls-passthrough' : https ? 'https' : 'http',
    owners: [{ cluster, kind: 'Gateway', namespace: gw.namespace, name: gw.name }],
    certificates: https
      ? [
          ...new Set(
            claim.listeners.flatMap((l) =>
              (l.listener.tls?.certificateRefs ?? []).map((r) =>
                certificateName(cluster, r.namespace === '' ? gw.namespace : r.namespace, r.name),
              ),
            ),
          ),
        ]
      : [],
    routes: sorted.map((s, order) => ({ ...s.route, order })),
    wildcardLabels: 'any',
    defaultPool: null,
    redirectToHttpsPort: null,
    requestScript: null,
    responseScript: null,
    customization: null,
  };
}

function certificates(input: GatewayPlanInput, claims: ReadonlyMap<string, PortClaim>): Certificate[] {
  const out = new Map<string, { c: Certificate; hosts: Set<string> }>();
  for (const claim of claims.values())
    for (const l of claim.listeners)
      for (const r of l.listener.tls?.certificateRefs ?? []) {
        const ns = r.namespace === '' ? claim.gateway.namespace : r.namespace;
        const name = certificateName(input.cluster, ns, r.name);
        const secret: ObjectRef = { cluster: input.cluster, kind: 'Secret', namespace: ns, name: r.name };
        const held = out.get(name) ?? {
          c: { name, secret, fingerprint: input.secretFingerprint(ns, r.name), hosts: [] },
          hosts: new Set<string>(),
        };
        if (l.listener.hostname !== '') held.hosts.add(l.listener.hostname);
        out.set(name, held);
      }
  return [...out.values()].map(({ c, hosts }) => ({ ...c, hosts: [...hosts].sort() }));
}

function compareAge(a: GatewayInput, b: GatewayInput): number {
  return compareText(a.creationTimestamp ?? '', b.creationTimestamp ?? '');
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
