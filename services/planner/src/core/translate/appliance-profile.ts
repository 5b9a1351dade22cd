import type { DriverKind, Monitor } from '@portolan/desired-state';
import type { ApplianceConfig, ClusterConfig } from '@portolan/fleet-config';
import { VTM_DEFAULT_MONITOR } from './annotation-schemas.ts';
import type { HostOwnership } from './host-ownership.ts';

/** The controller name the vTM Kubernetes integration documents; a vTM appliance answers it besides the configured ones. */
export const VTM_CONTROLLER = 'pulsesecure.net/vtm-ingress-controller';

/** Everything the pure stages need to know about one appliance, derived once from its fleet-config entry. */
export interface ApplianceProfile {
  readonly name: string;
  readonly driver: DriverKind;
  /** IngressClass `spec.controller` values this appliance answers. */
  readonly controllers: readonly string[];
  /** GatewayClass controllerName values this appliance answers, sorted. */
  readonly gatewayControllers: readonly string[];
  /** Addresses given to Gateways that ask for none (fleet config order). */
  readonly gatewayAddresses: readonly string[];
  /** Legacy `kubernetes.io/ingress.class` values answered without an IngressClass object (vTM: "vtm"). */
  readonly legacyClassValues: readonly string[];
  /** Clusters served; null = all. */
  readonly clusters: readonly string[] | null;
  readonly backendMode: 'endpoints' | 'nodeport';
  readonly enableCustomizations: boolean;
  readonly enableTrafficScript: boolean;
  /** Plain-HTTP and HTTPS default bind ports (HAProxy: from its section; vTM and LoadMaster: 80 and 443). */
  readonly httpPort: number;
  readonly httpsPort: number;
  /**
   * `vtm`: ssl-redirect is a redirect-only listener on port 80 and vTM's documented shared-address rules apply
   * (vTM, LoadMaster). `none`: one shared listener pair; ssl-redirect is per route (HAProxy).
   */
  readonly sharedRules: 'vtm' | 'none';
  /**
   * Whether an Ingress with a TLS section is served on the plain-HTTP port too, as the Ingress specification has it
   * (HAProxy, LoadMaster), or only on its HTTPS port (the vTM integration's documented rule: a TLS section moves the
   * virtual server to 443).
   */
  readonly tlsAlsoServesHttp: boolean;
  /** ssl-redirect for Ingresses whose annotations do not set it (HAProxy: `haproxy.sslRedirectDefault`). */
  readonly sslRedirectDefault: boolean;
  /** Unit a dedicated address is exclusive for: the whole IP (vTM traffic IP group) or one ip:port (LoadMaster VS). */
  readonly exclusivity: 'address' | 'listener';
  /** Which namespaces may serve routes on a host (host-ownership.ts). */
  readonly hostOwnership: HostOwnership;
  /** Whether Ingresses naming no address have somewhere to go (vTM default traffic IP group, LoadMaster default VS address). */
  readonly hasDefaultAddress: boolean;
  /** LoadMaster Service mode binds annotated Services to existing virtual services; every other profile plans Ingresses. */
  readonly mode: 'ingress' | 'service';
  /** Pool monitor when none is asked for (vTM: TCP connect). */
  readonly defaultMonitor: Monitor | null;
}

/** The GatewayClass controllerName an appliance answers when its fleet config names none. */
export const GATEWAY_CONTROLLER = 'portolan.dev/gateway-controller';

/** Derives the planning profile of an appliance from its (validated) fleet-config entry. */
export function profileFromConfig(a: ApplianceConfig): ApplianceProfile {
  const vtm = a.driver === 'vtm';
  const lm = a.driver === 'loadmaster';
  return {
    name: a.name,
    driver: a.driver,
    controllers: vtm
      ? [...new Set([...a.ingressControllers, VTM_CONTROLLER])].sort()
      : [...new Set(a.ingressControllers)].sort(),
    gatewayControllers: [...new Set(a.gatewayControllers ?? [GATEWAY_CONTROLLER])].sort(),
    gatewayAddresses: [...new Set(a.gatewayAddresses ?? [])],
    legacyClassValues: vtm ? ['vtm'] : lm ? ['kempLB'] : [],
    clusters: a.clusters === undefined ? null : [...a.clusters].sort(),
    backendMode: a.backendMode,
    enableCustomizations: a.enableCustomizations,
    enableTrafficScript: a.enableTrafficScript,
    httpPort: a.haproxy?.httpPort ?? 80,
    httpsPort: a.haproxy?.httpsPort ?? 443,
    sharedRules: a.driver === 'haproxy' ? 'none' : 'vtm',
    tlsAlsoServesHttp: !vtm,
    sslRedirectDefault: a.driver === 'haproxy' && a.haproxy?.sslRedirectDefault === true,
    exclusivity: lm ? 'listener' : 'address',
    hostOwnership: hostOwnershipOf(a),
    hasDefaultAddress:
      a.driver === 'haproxy' ||
      (vtm && a.vtm?.defaultTrafficIpGroup !== undefined) ||
      (lm && a.loadmaster?.defaultAddress !== undefined),
    mode: lm && a.loadmaster?.mode === 'service' ? 'service' : 'ingress',
    defaultMonitor: vtm ? VTM_DEFAULT_MONITOR : null,
  };
}

/** What the planner needs from a cluster's fleet-config entry. */
export interface ClusterProfile {
  readonly name: string;
  readonly weight: number;
  readonly namespaces: ClusterConfig['namespaces'];
}

/** The planning profiles of the fleet's clusters, by name. */
export function clusterProfilesOf(clusters: readonly ClusterConfig[]): Map<string, ClusterProfile> {
  return new Map(clusters.map((c) => [c.name, { name: c.name, weight: c.weight, namespaces: c.namespaces }]));
}

/** Whether a namespace is watched under a cluster's scope (one namespace, a list, or all but kube-system). */
export function isNamespaceInScope(namespace: string, scope: ClusterConfig['namespaces']): boolean {
  if (scope === 'all-except-kube-system') return namespace !== 'kube-system';
  if (typeof scope === 'string') return namespace === scope;
  return scope.includes(namespace);
}

/** Whether an appliance serves a cluster. */
export function servesCluster(profile: ApplianceProfile, cluster: string): boolean {
  return profile.clusters === null || profile.clusters.includes(cluster);
}

/** The appliance's host-ownership policy (a config built in code may omit it: shared). */
function hostOwnershipOf(a: ApplianceConfig): HostOwnership {
  const mode = a.hostOwnership ?? 'shared';
  if (mode !== 'allow-list') return { mode };
  return {
    mode,
    hosts: new Map(
      Object.entries(a.hostAllowList ?? {}).map(
        ([host, namespaces]) => [host.toLowerCase(), [...namespaces].sort()] as const,
      ),
    ),
  };
}
