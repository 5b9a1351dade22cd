/** How `metadata.generation` moves for a resource: on spec changes, on any non-metadata change, or never set. */
export type GenerationPolicy = 'spec' | 'non-metadata' | 'none';

/** One served resource: the facts discovery, routing, strategies and printing need. */
export interface ResourceType {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  /** Has a `/status` subresource: main writes keep status, status writes keep everything else. */
  readonly hasStatus: boolean;
  readonly generation: GenerationPolicy;
  /** Field selector labels beyond metadata.name and metadata.namespace. */
  readonly fieldLabels: readonly string[];
  /**
   * Served from a CustomResourceDefinition: pruned, defaulted and validated against its schema, patched with merge
   * and JSON patches only. Its versions share one storage, the first one listed.
   */
  readonly custom: boolean;
}

/** A Kubernetes object as JSON; stored objects are never mutated in place. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [key: string]: unknown;
}

/** The parts of ObjectMeta the simulator reads or writes. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string | null;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: unknown[];
  managedFields?: unknown[];
  [key: string]: unknown;
}

const eventFields = [
  'involvedObject.kind',
  'involvedObject.namespace',
  'involvedObject.name',
  'involvedObject.uid',
  'involvedObject.apiVersion',
  'involvedObject.resourceVersion',
  'involvedObject.fieldPath',
  'reason',
  'reportingComponent',
  'source',
  'type',
];

function resource(
  r: Partial<ResourceType> & Pick<ResourceType, 'group' | 'version' | 'kind' | 'plural' | 'namespaced'>,
): ResourceType {
  return {
    singular: r.kind.toLowerCase(),
    shortNames: [],
    categories: [],
    hasStatus: false,
    generation: 'none',
    fieldLabels: [],
    custom: false,
    ...r,
  };
}

/** The API group of the Gateway API kinds. */
export const gatewayGroup = 'gateway.networking.k8s.io';

/** The Gateway API kinds as their CRDs (release v1.3.0: standard channel, and TLSRoute from experimental) serve them. */
const gatewayKinds: readonly (Pick<ResourceType, 'kind' | 'plural'> &
  Partial<ResourceType> & { versions: string[] })[] = [
  {
    kind: 'GatewayClass',
    plural: 'gatewayclasses',
    namespaced: false,
    shortNames: ['gc'],
    versions: ['v1', 'v1beta1'],
  },
  { kind: 'Gateway', plural: 'gateways', shortNames: ['gtw'], versions: ['v1', 'v1beta1'] },
  { kind: 'HTTPRoute', plural: 'httproutes', versions: ['v1', 'v1beta1'] },
  { kind: 'GRPCRoute', plural: 'grpcroutes', versions: ['v1'] },
  {
    kind: 'ReferenceGrant',
    plural: 'referencegrants',
    shortNames: ['refgrant'],
    hasStatus: false,
    versions: ['v1beta1'],
  },
  { kind: 'TLSRoute', plural: 'tlsroutes', versions: ['v1alpha2'] },
];

/** Every served version of every Gateway API kind; a custom resource's generation moves on any non-metadata change. */
function gatewayResources(): ResourceType[] {
  return gatewayKinds.flatMap(({ versions, ...k }) =>
    versions.map((version) =>
      resource({
        group: gatewayGroup,
        version,
        namespaced: true,
        categories: ['gateway-api'],
        hasStatus: true,
        generation: 'non-metadata',
        custom: true,
        ...k,
      }),
    ),
  );
}

/** The API group of Role, ClusterRole, RoleBinding and ClusterRoleBinding. */
export const rbacGroup = 'rbac.authorization.k8s.io';

/** Every resource the simulator serves: what Portolan watches, writes, or kubectl needs. */
export const resourceTypes: readonly ResourceType[] = [
  resource({
    group: '',
    version: 'v1',
    kind: 'Namespace',
    plural: 'namespaces',
    namespaced: false,
    shortNames: ['ns'],
    hasStatus: true,
    fieldLabels: ['status.phase'],
  }),
  resource({
    group: '',
    version: 'v1',
    kind: 'Node',
    plural: 'nodes',
    namespaced: false,
    shortNames: ['no'],
    hasStatus: true,
    fieldLabels: ['spec.unschedulable'],
  }),
  resource({
    group: '',
    version: 'v1',
    kind: 'Service',
    plural: 'services',
    namespaced: true,
    shortNames: ['svc'],
    categories: ['all'],
    hasStatus: true,
  }),
  resource({ group: '', version: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true, fieldLabels: ['type'] }),
  resource({ group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true, shortNames: ['cm'] }),
  resource({
    group: '',
    version: 'v1',
    kind: 'Event',
    plural: 'events',
    namespaced: true,
    shortNames: ['ev'],
    fieldLabels: eventFields,
  }),
  resource({
    group: 'discovery.k8s.io',
    version: 'v1',
    kind: 'EndpointSlice',
    plural: 'endpointslices',
    namespaced: true,
    generation: 'non-metadata',
  }),
  resource({
    group: 'networking.k8s.io',
    version: 'v1',
    kind: 'Ingress',
    plural: 'ingresses',
    namespaced: true,
    shortNames: ['ing'],
    hasStatus: true,
    generation: 'spec',
  }),
  resource({
    group: 'networking.k8s.io',
    version: 'v1',
    kind: 'IngressClass',
    plural: 'ingressclasses',
    namespaced: false,
    generation: 'spec',
  }),
  resource({ group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', plural: 'leases', namespaced: true }),
  resource({
    group: '',
    version: 'v1',
    kind: 'ServiceAccount',
    plural: 'serviceaccounts',
    namespaced: true,
    shortNames: ['sa'],
  }),
  // RBAC objects: stored like any other kind, and read by the authorizer on every service-account request.
  resource({ group: rbacGroup, version: 'v1', kind: 'Role', plural: 'roles', namespaced: true }),
  resource({ group: rbacGroup, version: 'v1', kind: 'ClusterRole', plural: 'clusterroles', namespaced: false }),
  resource({ group: rbacGroup, version: 'v1', kind: 'RoleBinding', plural: 'rolebindings', namespaced: true }),
  resource({
    group: rbacGroup,
    version: 'v1',
    kind: 'ClusterRoleBinding',
    plural: 'clusterrolebindings',
    namespaced: false,
  }),
  ...gatewayResources(),
];

/**
 * Resources the API server answers without storing anything: create-only, served from the request alone
 * (TokenReview). They are discoverable and routable, but no store, list, watch or state file ever holds them.
 */
export const virtualResourceTypes: readonly ResourceType[] = [
  resource({
    group: 'authentication.k8s.io',
    version: 'v1',
    kind: 'TokenReview',
    plural: 'tokenreviews',
    namespaced: false,
  }),
];

/** Finds the virtual (create-only) resource type for a group, version and plural name. */
export function findVirtualResourceType(group: string, version: string, plural: string): ResourceType | undefined {
  return virtualResourceTypes.find((t) => t.group === group && t.version === version && t.plural === plural);
}

/** The apiVersion string of a resource type (`v1`, `networking.k8s.io/v1`). */
export function apiVersionOf(type: ResourceType): string {
  return type.group === '' ? type.version : `${type.group}/${type.version}`;
}

/** The type whose version stores a resource: the first one listed of its group and plural. */
export function storageTypeOf(type: ResourceType): ResourceType {
  return resourceTypes.find((t) => t.group === type.group && t.plural === type.plural) ?? type;
}

/** The object as the type's version serves it (versions of one kind here differ only in apiVersion). */
export function servedAs<T extends KubeObject>(type: ResourceType, obj: T): T {
  const apiVersion = apiVersionOf(type);
  return obj.apiVersion === undefined || obj.apiVersion === apiVersion ? obj : { ...obj, apiVersion };
}

/** The key the store indexes a resource type by (`/services`, `networking.k8s.io/ingresses`). */
export function resourceKeyOf(type: ResourceType): string {
  return `${type.group}/${type.plural}`;
}

/** The name used in API error messages: `ingresses.networking.k8s.io`, or `services` for the core group. */
export function qualifiedResourceOf(type: ResourceType): string {
  return type.group === '' ? type.plural : `${type.plural}.${type.group}`;
}

/** Finds the served resource type for a group, version and plural name. */
export function findResourceType(group: string, version: string, plural: string): ResourceType | undefined {
  return resourceTypes.find((t) => t.group === group && t.version === version && t.plural === plural);
}

/** Finds the served resource type for an object's apiVersion and kind. */
export function findResourceTypeByKind(apiVersion: string, kind: string): ResourceType | undefined {
  return resourceTypes.find((t) => apiVersionOf(t) === apiVersion && t.kind === kind);
}

/** The store key of an object: `namespace/name`, or `name` for cluster-scoped objects (etcd key order). */
export function objectKeyOf(namespace: string, name: string): string {
  return namespace === '' ? name : `${namespace}/${name}`;
}
