import type { DesiredState, ObjectRef, Pool, VirtualService } from '@portolan/desired-state';

/** An Ingress reference in cluster c1. */
export const ingressRef = (name: string, namespace = 'default'): ObjectRef => ({
  cluster: 'c1',
  kind: 'Ingress',
  namespace,
  name,
});

/** A pool with members "10.0.0.x:8080". */
export function pool(name: string, hosts: readonly number[]): Pool {
  return {
    name,
    monitor: null,
    persistence: null,
    tlsToBackend: false,
    customization: null,
    services: [],
    members: hosts.map((h) => ({
      address: `10.0.0.${h}`,
      port: 8080,
      state: 'active' as const,
      weight: 1,
      cluster: 'c1',
      node: '',
    })),
  };
}

/** An HTTP virtual service on port 80 of the default address routing one host to one pool per Ingress. */
export function httpService(
  owners: readonly string[],
  routes: readonly [host: string, pool: string][],
): VirtualService {
  return {
    name: 'http-80',
    address: { kind: 'default' },
    port: 80,
    protocol: 'http',
    owners: owners.map((o) => ingressRef(o)),
    certificates: [],
    routes: routes.map(([host, p], i) => ({
      host,
      path: '/',
      match: 'Prefix' as const,
      pool: p,
      source: ingressRef(owners[i] ?? owners[0]!),
    })),
    defaultPool: null,
    redirectToHttpsPort: null,
    requestScript: null,
    responseScript: null,
    customization: null,
  };
}

/** A desired state for `appliance` with the given pools, one HTTP service, and optional conditions/certificates. */
export function desiredState(
  appliance: string,
  pools: readonly Pool[],
  extra: Partial<DesiredState> = {},
): DesiredState {
  const owners = pools.map((p) => `ing-${p.name}`);
  return {
    appliance,
    driver: 'haproxy',
    pools: [...pools],
    certificates: [],
    bindings: [],
    conditions: [],
    virtualServices: [
      httpService(
        owners,
        pools.map((p) => [`${p.name}.example.com`, p.name]),
      ),
    ],
    ...extra,
  };
}
