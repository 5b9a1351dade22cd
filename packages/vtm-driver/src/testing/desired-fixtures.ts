import type {
  Certificate,
  DesiredState,
  ObjectRef,
  Pool,
  PoolMember,
  Route,
  VirtualService,
} from '@portolan/desired-state';

/** Builders for DesiredState inputs in tests (the planner is not needed to exercise render and diff). */

/** An Ingress reference in cluster c1. */
export function ingress(name: string, namespace = 'default'): ObjectRef {
  return { cluster: 'c1', kind: 'Ingress', namespace, name };
}

/** A Service reference in cluster c1. */
export function service(name: string, namespace = 'default'): ObjectRef {
  return { cluster: 'c1', kind: 'Service', namespace, name };
}

/** A route to `pool`. */
export function route(host: string, path: string, match: Route['match'], pool: string): Route {
  return { host, path, match, pool, source: ingress('web') };
}

/** A plain HTTP virtual service on a dedicated address, overridable field by field. */
export function virtualService(over: Partial<VirtualService> = {}): VirtualService {
  return {
    name: 'default.web',
    address: { kind: 'dedicated', ip: '192.0.2.10' },
    port: 80,
    protocol: 'http',
    owners: [ingress('web')],
    certificates: [],
    routes: [],
    defaultPool: null,
    redirectToHttpsPort: null,
    requestScript: null,
    responseScript: null,
    customization: null,
    ...over,
  };
}

/** A pool member. */
export function member(address: string, port = 8080, over: Partial<PoolMember> = {}): PoolMember {
  return { address, port, state: 'active', weight: 1, cluster: 'c1', node: '', ...over };
}

/** A pool with one member and no monitor or persistence. */
export function pool(name: string, over: Partial<Pool> = {}): Pool {
  return {
    name,
    members: [member('10.1.0.1')],
    monitor: null,
    persistence: null,
    tlsToBackend: false,
    customization: null,
    services: [service(name.split('.')[1] ?? name)],
    ...over,
  };
}

/** A certificate from Secret `name`. */
export function certificate(name: string, hosts: readonly string[], fingerprint = 'ab'.repeat(32)): Certificate {
  return { name, secret: { cluster: 'c1', kind: 'Secret', namespace: 'default', name }, fingerprint, hosts };
}

/** A desired state for appliance `vtm`. */
export function desiredState(over: Partial<DesiredState> = {}): DesiredState {
  return {
    appliance: 'vtm',
    driver: 'vtm',
    virtualServices: [],
    pools: [],
    certificates: [],
    bindings: [],
    conditions: [],
    ...over,
  };
}
