import type {
  Certificate,
  DesiredState,
  ObjectRef,
  Pool,
  PoolMember,
  Route,
  ServiceBinding,
  VirtualService,
} from '@portolan/desired-state';

/** Test builders for neutral desired states (the planner is not needed to test the driver). */

/** An object reference in cluster `c1`. */
export function ref(kind: ObjectRef['kind'], namespace: string, name: string): ObjectRef {
  return { cluster: 'c1', kind, namespace, name };
}

/** An active member with weight 1. */
export function member(address: string, port: number, state: PoolMember['state'] = 'active'): PoolMember {
  return { address, port, state, weight: 1, cluster: 'c1', node: '' };
}

/** A pool of members. */
export function pool(name: string, members: readonly PoolMember[]): Pool {
  return {
    name,
    members,
    monitor: null,
    persistence: null,
    tlsToBackend: false,
    customization: null,
    services: [ref('Service', 'default', name)],
  };
}

/** A route of Ingress default/web. */
export function route(host: string, path: string, match: Route['match'], poolName: string): Route {
  return { host, path, match, pool: poolName, source: ref('Ingress', 'default', 'web') };
}

/** An HTTP virtual service on a dedicated address. */
export function virtualService(
  name: string,
  routes: readonly Route[],
  extra: Partial<VirtualService> = {},
): VirtualService {
  return {
    name,
    address: { kind: 'dedicated', ip: '10.0.0.10' },
    port: 80,
    protocol: 'http',
    owners: [ref('Ingress', 'default', 'web')],
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

/** A certificate from Secret default/<name>. */
export function certificate(name: string, fingerprint: string): Certificate {
  return { name, secret: ref('Secret', 'default', name), fingerprint, hosts: ['shop.example.com'] };
}

/** A Service-mode binding. */
export function binding(target: string, service: string, members: readonly PoolMember[]): ServiceBinding {
  return { target, service: ref('Service', 'default', service), members };
}

/** A desired state for appliance `lm1`. */
export function desiredState(
  parts: Partial<Pick<DesiredState, 'virtualServices' | 'pools' | 'certificates' | 'bindings'>>,
): DesiredState {
  return {
    appliance: 'lm1',
    driver: 'loadmaster',
    virtualServices: parts.virtualServices ?? [],
    pools: parts.pools ?? [],
    certificates: parts.certificates ?? [],
    bindings: parts.bindings ?? [],
    conditions: [],
  };
}
