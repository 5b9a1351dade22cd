/**
 * The trimmed Kubernetes objects Portolan carries: only what the planner needs, so events are small, equal
 * content gives equal bytes, and nothing secret travels. `trimObject` produces them from API objects.
 */

/** Kubernetes kinds the pipeline follows. */
export type KubeKind =
  'Ingress' | 'IngressClass' | 'Service' | 'EndpointSlice' | 'Secret' | 'Node' | 'Namespace' | GatewayKind;

/** The Gateway API kinds the pipeline follows (group gateway.networking.k8s.io). */
export type GatewayKind = 'GatewayClass' | 'Gateway' | 'HTTPRoute' | 'TLSRoute' | 'ReferenceGrant';

/** The Gateway API kinds, in a fixed order. */
export const GATEWAY_KINDS: readonly GatewayKind[] = [
  'GatewayClass',
  'Gateway',
  'HTTPRoute',
  'TLSRoute',
  'ReferenceGrant',
];

/** Every kind, in a fixed order (for iteration that must not depend on insertion order). */
export const KUBE_KINDS: readonly KubeKind[] = [
  'Ingress',
  'IngressClass',
  'Service',
  'EndpointSlice',
  'Secret',
  'Node',
  'Namespace',
  'GatewayClass',
  'Gateway',
  'HTTPRoute',
  'TLSRoute',
  'ReferenceGrant',
];

/** The metadata kept on every trimmed object. */
export interface TrimmedMeta {
  readonly name: string;
  /** '' for cluster-scoped kinds (IngressClass, Node, Namespace, GatewayClass). */
  readonly namespace: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly generation?: number;
  /** RFC 3339 as the API server writes it, e.g. `2026-01-02T03:04:05Z`. */
  readonly creationTimestamp?: string;
  readonly deletionTimestamp?: string;
  readonly labels?: Readonly<Record<string, string>>;
  /** Without `kubectl.kubernetes.io/last-applied-configuration`. */
  readonly annotations?: Readonly<Record<string, string>>;
}

/** An Ingress backend: a Service port by number or by name, or a resource (unsupported by Portolan). */
export interface IngressBackend {
  readonly service?: {
    readonly name?: string;
    readonly port?: { readonly number?: number; readonly name?: string };
  };
  readonly resource?: { readonly apiGroup?: string; readonly kind?: string; readonly name?: string };
}

/** One path of an Ingress rule. */
export interface IngressPath {
  readonly path?: string;
  readonly pathType?: string;
  readonly backend?: IngressBackend;
}

/** One Ingress rule: an optional host and its paths. */
export interface IngressRule {
  readonly host?: string;
  readonly http?: { readonly paths?: readonly IngressPath[] };
}

/** One TLS section: hosts served with the certificate of `secretName`. */
export interface IngressTls {
  readonly hosts?: readonly string[];
  readonly secretName?: string;
}

/** networking.k8s.io/v1 Ingress, trimmed (no status). */
export interface TrimmedIngress {
  readonly kind: 'Ingress';
  readonly metadata: TrimmedMeta;
  readonly spec: {
    readonly ingressClassName?: string;
    readonly defaultBackend?: IngressBackend;
    readonly tls?: readonly IngressTls[];
    readonly rules?: readonly IngressRule[];
  };
}

/** networking.k8s.io/v1 IngressClass, trimmed to its controller. */
export interface TrimmedIngressClass {
  readonly kind: 'IngressClass';
  readonly metadata: TrimmedMeta;
  readonly spec: { readonly controller?: string };
}

/** One Service port. */
export interface ServicePort {
  readonly name?: string;
  readonly protocol?: string;
  readonly port?: number;
  readonly targetPort?: number | string;
  readonly nodePort?: number;
  readonly appProtocol?: string;
}

/** v1 Service, trimmed (no status, no selector, no cluster IPs). */
export interface TrimmedService {
  readonly kind: 'Service';
  readonly metadata: TrimmedMeta;
  readonly spec: {
    readonly type?: string;
    readonly ports?: readonly ServicePort[];
    readonly externalTrafficPolicy?: string;
    readonly externalName?: string;
  };
}

/** One endpoint of an EndpointSlice. Unset conditions follow the API's rules (ready unset = ready). */
export interface SliceEndpoint {
  readonly addresses: readonly string[];
  readonly conditions?: { readonly ready?: boolean; readonly serving?: boolean; readonly terminating?: boolean };
  readonly nodeName?: string;
}

/** One EndpointSlice port; `name` matches the Service port's name ('' when unnamed). */
export interface SlicePort {
  readonly name?: string;
  readonly port?: number;
  readonly protocol?: string;
}

/** discovery.k8s.io/v1 EndpointSlice, trimmed; labels keep only `kubernetes.io/service-name`. */
export interface TrimmedEndpointSlice {
  readonly kind: 'EndpointSlice';
  readonly metadata: TrimmedMeta;
  readonly addressType?: string;
  readonly endpoints: readonly SliceEndpoint[];
  readonly ports: readonly SlicePort[];
}

/** v1 Node, trimmed to its addresses and Ready condition. */
export interface TrimmedNode {
  readonly kind: 'Node';
  readonly metadata: TrimmedMeta;
  readonly status: {
    readonly addresses: readonly { readonly type: string; readonly address: string }[];
    /** Status of the Ready condition: 'True', 'False', 'Unknown', or undefined when absent. */
    readonly ready?: string;
  };
}

/** The envelope the watcher seals Secret data into (AES-256-GCM); opaque to everyone but the applier. */
export interface SealedBox {
  readonly keyId: string;
  readonly iv: string;
  readonly ciphertext: string;
  readonly tag: string;
}

/** v1 Secret, trimmed: its type, the sealed data and a keyed fingerprint (HMAC hex). Never plaintext. */
export interface TrimmedSecret {
  readonly kind: 'Secret';
  readonly metadata: TrimmedMeta;
  readonly type: string;
  readonly sealed: SealedBox | null;
  /** Keyed fingerprint of the certificate and key; changes exactly when the material does. */
  readonly fingerprint: string | null;
  /** What the watcher could tell of its TLS material before sealing it (absent: not inspected, or no TLS keys). */
  readonly tls?: SecretTlsSummary;
}

/** A TLS Secret's material as the watcher judged it: usable (with names and validity) or why not. Never key bytes. */
export type SecretTlsSummary =
  | {
      readonly ok: true;
      readonly names: readonly string[];
      readonly notAfter: string;
      readonly expiredWhenRead: boolean;
    }
  | { readonly ok: false; readonly reason: string };

/** v1 Namespace, trimmed to its labels (the Gateway API's `allowedRoutes` selects namespaces by label). */
export interface TrimmedNamespace {
  readonly kind: 'Namespace';
  readonly metadata: TrimmedMeta;
}

/** A JSON value as the API server sends it. */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [k: string]: JsonValue };

/**
 * A Gateway API object, trimmed to its metadata and spec: the CRD's schema has already shaped the spec (the API
 * server validates and defaults it), and its status is Portolan's to write, not to read. The spec keeps only JSON
 * values, keys in sorted order, so equal content has equal bytes.
 */
export interface TrimmedGatewayObject<K extends GatewayKind = GatewayKind> {
  readonly kind: K;
  readonly metadata: TrimmedMeta;
  readonly spec: { readonly [k: string]: JsonValue };
}

/** Any trimmed object. */
export type TrimmedObject =
  | TrimmedIngress
  | TrimmedIngressClass
  | TrimmedService
  | TrimmedEndpointSlice
  | TrimmedSecret
  | TrimmedNode
  | TrimmedNamespace
  | TrimmedGatewayObject<'GatewayClass'>
  | TrimmedGatewayObject<'Gateway'>
  | TrimmedGatewayObject<'HTTPRoute'>
  | TrimmedGatewayObject<'TLSRoute'>
  | TrimmedGatewayObject<'ReferenceGrant'>;

/** The trimmed object type of a kind. */
export type TrimmedObjectOf<K extends KubeKind> = Extract<TrimmedObject, { readonly kind: K }>;

/** The label naming an EndpointSlice's Service. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
/** The annotation kubectl writes with the whole previous object: large, irrelevant, dropped. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
