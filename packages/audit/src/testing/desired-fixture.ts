import type {
  Certificate,
  DesiredState,
  DriverKind,
  ObjectRef,
  Pool,
  Route,
  VirtualService,
} from '@portolan/desired-state';

/** An object reference in cluster c1, namespace shop. */
export const ref = (kind: ObjectRef['kind'], name: string): ObjectRef => ({
  cluster: 'c1',
  kind,
  namespace: 'shop',
  name,
});

/** A pool fed by Service `service` with members 10.0.0.<n>:8080. */
export function pool(name: string, service: string, hosts: readonly number[]): Pool {
  return {
    name,
    monitor: null,
    persistence: null,
    tlsToBackend: false,
    customization: null,
    services: [ref('Service', service)],
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

/** A route from Ingress `ingress`. */
export function route(
  host: string,
  path: string,
  poolName: string,
  ingress: string,
  match: Route['match'] = 'Prefix',
): Route {
  return { host, path, match, pool: poolName, source: ref('Ingress', ingress) };
}

/** A virtual service on the default address. */
export function vs(
  name: string,
  port: number,
  routes: readonly Route[],
  extra: Partial<VirtualService> = {},
): VirtualService {
  const owners = [...new Map(routes.map((r) => [r.source.name, r.source])).values()];
  return {
    name,
    address: { kind: 'default' },
    port,
    protocol: 'http',
    owners,
    certificates: [],
    routes: [...routes],
    defaultPool: null,
    redirectToHttpsPort: null,
    requestScript: null,
    responseScript: null,
    customization: null,
    ...extra,
  };
}

/** A certificate from Secret `secret` with a fingerprint. */
export function certificate(name: string, secret: string, fingerprint: string, hosts: readonly string[]): Certificate {
  return { name, secret: ref('Secret', secret), fingerprint, hosts: [...hosts] };
}

/** A desired state (canonical order is the caller's job: pass things sorted). */
export function desired(parts: {
  driver?: DriverKind;
  virtualServices?: readonly VirtualService[];
  pools?: readonly Pool[];
  certificates?: readonly Certificate[];
}): DesiredState {
  return {
    appliance: 'edge',
    driver: parts.driver ?? 'vtm',
    virtualServices: [...(parts.virtualServices ?? [])],
    pools: [...(parts.pools ?? [])],
    certificates: [...(parts.certificates ?? [])],
    bindings: [],
    conditions: [],
  };
}

/** The shop: web (TLS on 443, two paths) and api on port 80. */
export function shop(webHosts: readonly number[] = [1, 2], fingerprint = 'aa'.repeat(32)): DesiredState {
  return desired({
    virtualServices: [
      vs('http-80', 80, [
        route('api.example.com', '/api', 'shop~api~80', 'api'),
        route('web.example.com', '/static', 'shop~static~80', 'web'),
        route('web.example.com', '/', 'shop~web~80', 'web'),
      ]),
      vs('https-443', 443, [route('web.example.com', '/', 'shop~web~80', 'web')], {
        protocol: 'https',
        certificates: ['web-tls'],
      }),
    ],
    pools: [
      pool('shop~api~80', 'api', [9]),
      pool('shop~static~80', 'static', [7]),
      pool('shop~web~80', 'web', webHosts),
    ],
    certificates: [certificate('web-tls', 'web-tls', fingerprint, ['web.example.com'])],
  });
}
