/**
 * The appliance-neutral desired state: what one appliance should carry, as pure data.
 *
 * Produced by the planner's pure `plan()`, consumed by every driver's pure `render()`.
 * Invariants (checked by `assertCanonical` in tests, relied on by content hashing):
 * - every array is sorted by the documented key, so equal inputs give equal bytes;
 * - no secret material: certificates are references plus a keyed fingerprint;
 * - names are deterministic functions of Kubernetes identities, never of event order.
 */

import type { KubeKind } from '@portolan/kube-model';

/** Which driver family renders a desired state. */
export type DriverKind = 'haproxy' | 'vtm' | 'loadmaster';

/** A Kubernetes object identity as the planner saw it. Sorted by (cluster, kind, namespace, name). */
export interface ObjectRef {
  readonly cluster: string;
  readonly kind: KubeKind;
  readonly namespace: string;
  readonly name: string;
}

/** Kubernetes kinds the pipeline follows. */
export type { KubeKind };

/** How a listener gets its address. `default` means the appliance profile's default (vTM: default traffic IP group). */
export type ListenAddress =
  | { readonly kind: 'default' }
  | { readonly kind: 'dedicated'; readonly ip: string }
  | { readonly kind: 'shared'; readonly ip: string };

/** Protocol a virtual service accepts. `tls-passthrough` routes by SNI without decrypting. */
export type ListenProtocol = 'http' | 'https' | 'tls-passthrough';

/**
 * Path match kind: Exact and Prefix from Ingress (ImplementationSpecific is planned as Prefix) and HTTPRoute; Regex
 * from an HTTPRoute's RegularExpression path (a POSIX extended expression matched against the whole path).
 */
export type PathMatch = 'Exact' | 'Prefix' | 'Regex';

/** A header or query parameter condition of an HTTPRoute match. Header names compare case-insensitively. */
export interface ValueMatch {
  readonly name: string;
  readonly type: 'Exact' | 'Regex';
  readonly value: string;
}

/** Header edits of a RequestHeaderModifier or ResponseHeaderModifier filter, each list sorted by name. */
export interface HeaderEdits {
  readonly set: readonly { readonly name: string; readonly value: string }[];
  readonly add: readonly { readonly name: string; readonly value: string }[];
  readonly remove: readonly string[];
}

/** A path rewrite: the whole path, or the part the route's Prefix matched. */
export interface PathRewrite {
  readonly type: 'ReplaceFullPath' | 'ReplacePrefixMatch';
  readonly value: string;
}

/** What an HTTPRoute rule's filters do to a request it matches (at most one redirect or rewrite). */
export interface RouteFilters {
  readonly requestHeaders?: HeaderEdits;
  readonly responseHeaders?: HeaderEdits;
  /** Answer with a redirect instead of proxying; unset parts keep the request's. */
  readonly redirect?: {
    readonly scheme?: string;
    readonly hostname?: string;
    readonly port?: number;
    readonly path?: PathRewrite;
    readonly statusCode: number;
  };
  /** Rewrite the request before proxying it. */
  readonly rewrite?: { readonly hostname?: string; readonly path?: PathRewrite };
}

/** One routing entry: host (exact, `*.suffix`, or '' for any) and path to a pool. */
export interface Route {
  /** Lower-case ASCII (IDNA), no trailing dot; `*.example.com` for a single-label wildcard; '' matches any host. */
  readonly host: string;
  /** '' means "any path" (a rule without paths is not valid Ingress; used for defaultBackend-like host routes). */
  readonly path: string;
  readonly match: PathMatch;
  readonly pool: string;
  /** The Ingress or route this route came from (the winner when several asked for the same host+path). */
  readonly source: ObjectRef;
  /**
   * Optional (added by the planner): when set, matching requests are redirected to https on this port instead of
   * proxied to `pool` (per-route ssl-redirect on a listener shared with plain-http Ingresses). Absent: proxy.
   */
  readonly redirectToHttpsPort?: number;
  /**
   * Optional (HTTPRoute): the route's place among the routes of its host, 0 first, by the Gateway API's precedence
   * (path kind and length, method, header and query matches, route age and name, rule order). Routes that carry it
   * are ordered by it within their host, not by path; a virtual service holds routes of one API only.
   */
  readonly order?: number;
  /**
   * Optional (HTTPRoute, TLSRoute): where in the route it comes from — the index of its rule — and the listener
   * (section name) of the owning Gateway it attached through; `explain` names both.
   */
  readonly via?: { readonly rule: number; readonly listener: string };
  /** Optional (HTTPRoute): every header listed must match. */
  readonly headers?: readonly ValueMatch[];
  /** Optional (HTTPRoute): every query parameter listed must match. */
  readonly queryParams?: readonly ValueMatch[];
  /** Optional (HTTPRoute): the request method, upper case. */
  readonly method?: string;
  /** Optional (HTTPRoute): the rule's filters. */
  readonly filters?: RouteFilters;
  /**
   * Optional (HTTPRoute): answer with this status instead of proxying (500 when none of the rule's backends is
   * usable, as the specification asks); `pool` is then ''.
   */
  readonly fixedStatus?: number;
}

/** A listening service on the appliance: one per (address, port) after sharing rules. */
export interface VirtualService {
  /** Deterministic name, unique within the appliance. */
  readonly name: string;
  readonly address: ListenAddress;
  readonly port: number;
  readonly protocol: ListenProtocol;
  /** Ingresses that contribute to this service, oldest first (vTM's documented rule: shared IP routes apply in creation order). */
  readonly owners: readonly ObjectRef[];
  /** Certificate names (see DesiredState.certificates) served by SNI; the first is the default certificate. */
  readonly certificates: readonly string[];
  /** Routes in precedence order: exact hosts before wildcards before any-host; longer paths first; Exact before Prefix. */
  readonly routes: readonly Route[];
  /**
   * How far a wildcard route host `*.example.com` reaches: absent, exactly one label (`a.example.com`, Ingress's
   * rule); `'any'`, any number of labels (`a.b.example.com` too, Gateway API's rule), the longest suffix winning.
   */
  readonly wildcardLabels?: 'any';
  /** Pool used when no route matches; null means answer 404. */
  readonly defaultPool: string | null;
  /** When set, this service only redirects to https on the given port (ssl-redirect). */
  readonly redirectToHttpsPort: number | null;
  /** Verbatim user TrafficScript (vTM, only when the profile enables it); placed first in the rule lists. */
  readonly requestScript: string | null;
  readonly responseScript: string | null;
  /** Vendor JSON merged over the rendered object (only when the profile enables customizations). */
  readonly customization: JsonObject | null;
}

/** Health monitor settings. `vendor` carries a driver-native object (e.g. vTM monitor properties) checked by schema. */
export interface Monitor {
  readonly type: 'tcp' | 'http' | 'https';
  readonly path: string;
  readonly hostHeader: string;
  /** Regex over the status code, e.g. `^[234][0-9][0-9]$`. */
  readonly expectStatus: string;
  readonly intervalSeconds: number;
  readonly timeoutSeconds: number;
  readonly failures: number;
  readonly vendor: JsonObject | null;
}

/** Session persistence settings. */
export interface Persistence {
  readonly type: 'cookie' | 'source-ip';
  readonly cookie: string;
  readonly vendor: JsonObject | null;
}

/** Member state: ready endpoints are active; serving-but-terminating ones are draining. */
export type MemberState = 'active' | 'draining';

/** One backend address. Sorted by (address, port). */
export interface PoolMember {
  readonly address: string;
  readonly port: number;
  readonly state: MemberState;
  readonly weight: number;
  /** The cluster the endpoint came from (multi-cluster pools hold several). */
  readonly cluster: string;
  /** Node name when known (NodePort mode, or the endpoint's nodeName). */
  readonly node: string;
}

/** A backend pool: one per (namespace, service, port) across the clusters an appliance serves. */
export interface Pool {
  readonly name: string;
  readonly members: readonly PoolMember[];
  readonly monitor: Monitor | null;
  readonly persistence: Persistence | null;
  /** Re-encrypt: TLS from the appliance to the members. */
  readonly tlsToBackend: boolean;
  readonly customization: JsonObject | null;
  /** The Services whose endpoints fill this pool. */
  readonly services: readonly ObjectRef[];
}

/** A TLS certificate by reference; the applier decrypts the sealed Secret just before pushing. */
export interface Certificate {
  readonly name: string;
  readonly secret: ObjectRef;
  /** HMAC-SHA256 (fleet key) over the Secret's certificate and key, hex: changes exactly when the material does. */
  readonly fingerprint: string;
  /** Hosts this certificate is served for (from the Ingress tls sections), sorted. */
  readonly hosts: readonly string[];
  /**
   * Optional (added by the planner): true when the certificate is obtained and renewed through ACME (vTM
   * `use-lets-encrypt`); `fingerprint` is '' until the issued Secret exists. Absent: an existing Secret.
   */
  readonly acme?: boolean;
}

/** A pre-existing appliance service that a Service feeds (LoadMaster Service mode, as its Ingress controller documents it): never created by us. */
export interface ServiceBinding {
  /** The appliance-side identity, e.g. LoadMaster VS index "12" or "10.0.0.4:80:tcp". */
  readonly target: string;
  readonly service: ObjectRef;
  readonly members: readonly PoolMember[];
}

/** Outcome of planning one Kubernetes object for this appliance. */
export interface ObjectCondition {
  readonly object: ObjectRef;
  readonly type: 'Accepted' | 'Rejected' | 'Warning';
  /** Stable CamelCase reason, e.g. `SecretNotFound`, `HostConflict`. */
  readonly reason: string;
  readonly message: string;
  /**
   * Optional (Gateway API objects, on their Accepted or Rejected line): the status this appliance's controller
   * gives the object, shaped as the specification's status (conditions with observedGeneration, listeners,
   * route parents), without lastTransitionTime and addresses, which the writer adds.
   */
  readonly status?: JsonObject;
}

/** Everything one appliance should carry. */
export interface DesiredState {
  readonly appliance: string;
  readonly driver: DriverKind;
  readonly virtualServices: readonly VirtualService[];
  readonly pools: readonly Pool[];
  readonly certificates: readonly Certificate[];
  readonly bindings: readonly ServiceBinding[];
  /** Conditions for every object this appliance considered (accepted ones included), sorted by object. */
  readonly conditions: readonly ObjectCondition[];
  /**
   * Optional (added for the ACME issuer): certificates to obtain through ACME (vTM `use-lets-encrypt`), sorted
   * by secret. The planner lists a use-lets-encrypt Ingress's TLS Secret here when it is missing or expiring; the
   * issuer (@portolan/acme-issuer) obtains the certificate and writes the Secret, which then flows back through
   * the watcher like any other Secret. Absent or empty: nothing to request.
   */
  readonly certificateRequests?: readonly CertificateRequest[];
}

/**
 * A certificate the ACME issuer should obtain: the kubernetes.io/tls Secret to write and the hosts it must
 * cover (the Ingress tls section's hosts, lower-case, sorted, deduplicated). Sorted by `secret`.
 */
export interface CertificateRequest {
  /** The Secret (kind Secret) the issued certificate and key are written to. */
  readonly secret: ObjectRef;
  /** DNS names for the certificate's SAN; every one is validated by HTTP-01 through the appliance. */
  readonly hosts: readonly string[];
  /** The Ingress that asked for it (recorded on the Secret, for people and for Events). */
  readonly ingress: ObjectRef;
}

/** JSON values as they travel through plans (no undefined, no functions). */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | JsonObject;
/** A JSON object with string keys. */
export interface JsonObject {
  readonly [key: string]: JsonValue;
}
