import type {
  Certificate,
  DesiredState,
  ObjectRef,
  Pool,
  PoolMember,
  Route,
  VirtualService,
} from '@portolan/desired-state';

/** Test fixtures: small builders for desired states, so tests read as tables of what matters. */

const ingress: ObjectRef = { cluster: 'c1', kind: 'Ingress', namespace: 'default', name: 'web' };

/** A ready member with weight 1. */
export function member(address: string, port: number, extra: Partial<PoolMember> = {}): PoolMember {
  return { address, port, state: 'active', weight: 1, cluster: 'c1', node: '', ...extra };
}

/** A pool with no monitor, persistence or re-encrypt unless given. */
export function pool(name: string, members: readonly PoolMember[], extra: Partial<Pool> = {}): Pool {
  return {
    name,
    members,
    monitor: null,
    persistence: null,
    tlsToBackend: false,
    customization: null,
    services: [{ cluster: 'c1', kind: 'Service', namespace: 'default', name }],
    ...extra,
  };
}

/** A route from the `web` Ingress. */
export function route(host: string, path: string, match: Route['match'], poolName: string): Route {
  return { host, path, match, pool: poolName, source: ingress };
}

const httpRoute: ObjectRef = { cluster: 'c1', kind: 'HTTPRoute', namespace: 'default', name: 'web-route' };

/** A route from the `web-route` HTTPRoute at place `order` of its host, with HTTPRoute fields from `extra`. */
export function gatewayRoute(
  host: string,
  path: string,
  match: Route['match'],
  poolName: string,
  order: number,
  extra: Partial<Route> = {},
): Route {
  return { host, path, match, pool: poolName, source: httpRoute, order, ...extra };
}

/** A listener on the appliance's default address. */
export function service(
  name: string,
  port: number,
  routes: readonly Route[],
  extra: Partial<VirtualService> = {},
): VirtualService {
  return {
    name,
    address: { kind: 'default' },
    port,
    protocol: 'http',
    owners: [ingress],
    certificates: [],
    routes,
    defaultPool: null,
    redirectToHttpsPort: null,
    requestScript: null,
    responseScript: null,
    customization: null,
    ...extra,
  };
}

/** A certificate reference to a Secret of the same name. */
export function certificate(name: string, hosts: readonly string[], fingerprint = 'fp1'): Certificate {
  return { name, secret: { cluster: 'c1', kind: 'Secret', namespace: 'default', name }, fingerprint, hosts };
}

/** A desired state for appliance `edge`. */
export function desired(
  parts: Partial<Pick<DesiredState, 'virtualServices' | 'pools' | 'certificates'>>,
): DesiredState {
  return {
    appliance: 'edge',
    driver: 'haproxy',
    virtualServices: parts.virtualServices ?? [],
    pools: parts.pools ?? [],
    certificates: parts.certificates ?? [],
    bindings: [],
    conditions: [],
  };
}
