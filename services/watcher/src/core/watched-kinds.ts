import type { GatewayKind, KubeKind } from '@portolan/kube-model';
import type { KindToken } from '@portolan/bus';
import { KubeKind as ProtoKind } from '@portolan/proto';

/** How one watched kind is reached on the API server and named on the bus. */
export interface WatchedKind {
  readonly kind: KubeKind;
  /** Subject token, e.g. `endpointslice`. */
  readonly token: KindToken;
  readonly protoKind: ProtoKind;
  /** `/api/v1` or `/apis/<group>/<version>`. */
  readonly apiPrefix: string;
  /** Plural resource name in request paths. */
  readonly resource: string;
  readonly namespaced: boolean;
  /** Server-side field selector every request of this kind carries. */
  readonly fieldSelector?: string;
  /**
   * Served only once its CRD is installed (the Gateway API): a 404 on its list means no objects, not a fault, and
   * the kind is looked for again every `absentRecheckMs`.
   */
  readonly optional?: boolean;
}

/**
 * The kinds the watcher follows, in a fixed order. Secrets only of type kubernetes.io/tls. Namespaces for their
 * labels (a Gateway listener admits routes by namespace selector).
 */
export const WATCHED_KINDS: readonly WatchedKind[] = [
  {
    kind: 'Ingress',
    token: 'ingress',
    protoKind: ProtoKind.INGRESS,
    apiPrefix: '/apis/networking.k8s.io/v1',
    resource: 'ingresses',
    namespaced: true,
  },
  {
    kind: 'IngressClass',
    token: 'ingressclass',
    protoKind: ProtoKind.INGRESS_CLASS,
    apiPrefix: '/apis/networking.k8s.io/v1',
    resource: 'ingressclasses',
    namespaced: false,
  },
  {
    kind: 'Service',
    token: 'service',
    protoKind: ProtoKind.SERVICE,
    apiPrefix: '/api/v1',
    resource: 'services',
    namespaced: true,
  },
  {
    kind: 'EndpointSlice',
    token: 'endpointslice',
    protoKind: ProtoKind.ENDPOINT_SLICE,
    apiPrefix: '/apis/discovery.k8s.io/v1',
    resource: 'endpointslices',
    namespaced: true,
  },
  {
    kind: 'Secret',
    token: 'secret',
    protoKind: ProtoKind.SECRET,
    apiPrefix: '/api/v1',
    resource: 'secrets',
    namespaced: true,
    fieldSelector: 'type=kubernetes.io/tls',
  },
  {
    kind: 'Node',
    token: 'node',
    protoKind: ProtoKind.NODE,
    apiPrefix: '/api/v1',
    resource: 'nodes',
    namespaced: false,
  },
  {
    kind: 'Namespace',
    token: 'namespace',
    protoKind: ProtoKind.NAMESPACE,
    apiPrefix: '/api/v1',
    resource: 'namespaces',
    namespaced: false,
  },
  gatewayKind('GatewayClass', ProtoKind.GATEWAY_CLASS, 'v1', 'gatewayclasses', false),
  gatewayKind('Gateway', ProtoKind.GATEWAY, 'v1', 'gateways', true),
  gatewayKind('HTTPRoute', ProtoKind.HTTP_ROUTE, 'v1', 'httproutes', true),
  gatewayKind('TLSRoute', ProtoKind.TLS_ROUTE, 'v1alpha2', 'tlsroutes', true),
  gatewayKind('ReferenceGrant', ProtoKind.REFERENCE_GRANT, 'v1beta1', 'referencegrants', true),
];

/** A kind of gateway.networking.k8s.io, read at the version every supported Gateway API release serves. */
function gatewayKind(
  kind: GatewayKind,
  protoKind: ProtoKind,
  version: string,
  resource: string,
  namespaced: boolean,
): WatchedKind {
  const token = kind.toLowerCase() as KindToken;
  return {
    kind,
    token,
    protoKind,
    apiPrefix: `/apis/gateway.networking.k8s.io/${version}`,
    resource,
    namespaced,
    optional: true,
  };
}

/** The watched kind entry of `kind`. */
export function watchedKind(kind: KubeKind): WatchedKind {
  const found = WATCHED_KINDS.find((k) => k.kind === kind);
  if (found === undefined) throw new RangeError(`kind ${kind} is not watched`);
  return found;
}
