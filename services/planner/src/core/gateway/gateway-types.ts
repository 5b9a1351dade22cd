import type { JsonValue } from '@portolan/kube-model';

/**
 * Gateway API objects as the Gateway translation reads them: the fields it uses, already decoded, with the defaults
 * the CRD schema applies filled in (path match PathPrefix "/", backendRef weight 1, group "" and kind Service,
 * allowedRoutes from Same). Names follow the specification's so its text reads against this code.
 */

/** Listener protocols the specification names; Portolan serves HTTP, HTTPS and TLS. */
export type ListenerProtocol = 'HTTP' | 'HTTPS' | 'TLS' | 'TCP' | 'UDP';

/** A reference to a Secret (certificateRefs) or a backend (backendRefs), namespace '' meaning the referrer's own. */
export interface ObjectReference {
  readonly group: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

export interface GatewayClassInput {
  readonly name: string;
  readonly controllerName: string;
  readonly generation: number;
}

export interface ListenerInput {
  readonly name: string;
  /** '' when the listener sets none (any host); may be a wildcard `*.example.com`. */
  readonly hostname: string;
  readonly port: number;
  readonly protocol: ListenerProtocol;
  readonly tls: {
    readonly mode: 'Terminate' | 'Passthrough';
    readonly certificateRefs: readonly ObjectReference[];
  } | null;
  readonly allowedRoutes: {
    readonly from: 'Same' | 'All' | 'Selector';
    /** matchLabels of the namespace selector (from: Selector); matchExpressions are refused upstream of here. */
    readonly selector: Readonly<Record<string, string>>;
    /** Empty: the kinds the protocol supports. */
    readonly kinds: readonly { readonly group: string; readonly kind: string }[];
  };
}

export interface GatewayInput {
  readonly namespace: string;
  readonly name: string;
  readonly generation: number;
  /** RFC 3339: the older Gateway keeps an address and port two of them ask for. */
  readonly creationTimestamp?: string;
  /** The IP addresses asked for in spec.addresses; empty: the appliance's default address. */
  readonly addresses?: readonly string[];
  /** spec.infrastructure.parametersRef is set: Portolan takes no parameters, so the Gateway is not accepted. */
  readonly parametersRef?: boolean;
  readonly gatewayClassName: string;
  readonly listeners: readonly ListenerInput[];
}

export interface ParentReference {
  readonly group: string;
  readonly kind: string;
  /** '' means the route's own namespace. */
  readonly namespace: string;
  readonly name: string;
  /** '' when the reference names no listener. */
  readonly sectionName: string;
  /** 0 when the reference names no port. */
  readonly port: number;
}

export type PathMatchType = 'Exact' | 'PathPrefix' | 'RegularExpression';

export interface HttpRouteMatch {
  readonly path: { readonly type: PathMatchType; readonly value: string };
  readonly headers: readonly {
    readonly type: 'Exact' | 'RegularExpression';
    readonly name: string;
    readonly value: string;
  }[];
  readonly queryParams: readonly {
    readonly type: 'Exact' | 'RegularExpression';
    readonly name: string;
    readonly value: string;
  }[];
  /** '' when the match names no method. */
  readonly method: string;
}

export interface BackendReference extends ObjectReference {
  readonly port: number;
  readonly weight: number;
}

/** One filter of a rule as the object spells it. */
export interface RouteFilterInput {
  readonly type: string;
  readonly [field: string]: JsonValue;
}

export interface HttpRouteRule {
  readonly matches: readonly HttpRouteMatch[];
  readonly backendRefs: readonly BackendReference[];
  /** Filters as written: the type, and the fields of its configuration (e.g. `requestRedirect`). */
  readonly filters: readonly RouteFilterInput[];
}

export interface HttpRouteInput {
  /** A TLSRoute is read into the same shape: rules with backendRefs only, attached to TLS listeners. */
  readonly kind?: 'HTTPRoute' | 'TLSRoute';
  readonly namespace: string;
  readonly name: string;
  readonly generation: number;
  /** RFC 3339, as Kubernetes writes it: the oldest route wins a tie. */
  readonly creationTimestamp: string;
  readonly parentRefs: readonly ParentReference[];
  readonly hostnames: readonly string[];
  readonly rules: readonly HttpRouteRule[];
}

export interface ReferenceGrantInput {
  readonly namespace: string;
  readonly from: readonly { readonly group: string; readonly kind: string; readonly namespace: string }[];
  /** name '' grants every object of the kind. */
  readonly to: readonly { readonly group: string; readonly kind: string; readonly name: string }[];
}

/** The kind of a route input (HTTPRoute unless it says otherwise). */
export const routeKind = (route: { readonly kind?: 'HTTPRoute' | 'TLSRoute' }): 'HTTPRoute' | 'TLSRoute' =>
  route.kind ?? 'HTTPRoute';

/** A status condition as the specification defines it for Gateway API objects. */
export interface GatewayCondition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
}

/** The API group of Gateway API objects. */
export const GATEWAY_GROUP = 'gateway.networking.k8s.io';
