// Schema pieces the Gateway API CRDs share (release v1.3.0): names and references, hostnames, conditions, route
// status, and the filters HTTPRoute and GRPCRoute have in common. Patterns are written as the CRDs spell them,
// since the API server quotes them in its messages.
import {
  arr,
  asList,
  asObject,
  existsOne,
  has,
  int,
  map,
  obj,
  rule,
  str,
  unsetOrEmpty,
  type SchemaNode,
  type SchemaRule,
} from './structural-schema.ts';
import { gatewayGroup } from './resource-types.ts';

export { gatewayGroup };

const subdomain = String.raw`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`;
const wildcardHostname = String.raw`^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`;
const groupPattern = String.raw`^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`;
const kindPattern = String.raw`^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$`;
const namespacePattern = String.raw`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`;
const headerNamePattern = String.raw`^[A-Za-z0-9!#$%&'*+\-.^_\x60|~]+$`;

/** A controller name: a domain-prefixed path (`example.com/gateway-controller`). */
export const controllerName = str({
  maxLength: 253,
  minLength: 1,
  pattern: String.raw`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/[A-Za-z0-9\/\-._~%!$&'()*+,;=:]+$`,
});

/** A DNS subdomain name (SectionName, PreciseHostname). */
export const sectionName = str({ maxLength: 253, minLength: 1, pattern: subdomain });

/** A hostname that may start with a `*.` wildcard label. */
export const hostname = str({ maxLength: 253, minLength: 1, pattern: wildcardHostname });

/** Hostnames of a route. */
export const hostnames = arr(hostname, { maxItems: 16 });

/** An API group ('' is the core group), optionally defaulted. */
export function group(defaultValue?: string): SchemaNode {
  return str({
    maxLength: 253,
    pattern: groupPattern,
    ...(defaultValue === undefined ? {} : { default: defaultValue }),
  });
}

/** A kind, optionally defaulted. */
export function kind(defaultValue?: string): SchemaNode {
  return str({
    maxLength: 63,
    minLength: 1,
    pattern: kindPattern,
    ...(defaultValue === undefined ? {} : { default: defaultValue }),
  });
}

/** An object name. */
export const objectName = str({ maxLength: 253, minLength: 1 });

/** A namespace name. */
export const namespaceName = str({ maxLength: 63, minLength: 1, pattern: namespacePattern });

/** A port number. */
export const portNumber = int({ maximum: 65535, minimum: 1 });

/** A label value (Gateway infrastructure labels). */
export const labelValue = String.raw`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`;

/** A reference to a parent (a Gateway unless told otherwise) that a route attaches to. */
export const parentReference = obj(
  {
    group: group(gatewayGroup),
    kind: kind('Gateway'),
    name: objectName,
    namespace: namespaceName,
    port: portNumber,
    sectionName,
  },
  { required: ['name'] },
);

/** Two parent references name the same parent (group, kind, name, and namespace when either sets one). */
export function sameParent(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const sameNamespace =
    (unsetOrEmpty(a, 'namespace') && unsetOrEmpty(b, 'namespace')) ||
    (has(a, 'namespace') && has(b, 'namespace') && a['namespace'] === b['namespace']);
  return a['group'] === b['group'] && a['kind'] === b['kind'] && a['name'] === b['name'] && sameNamespace;
}

function sameSection(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  return (
    (unsetOrEmpty(a, 'sectionName') && unsetOrEmpty(b, 'sectionName')) ||
    (has(a, 'sectionName') && has(b, 'sectionName') && a['sectionName'] === b['sectionName'])
  );
}

/** The parentRefs of HTTPRoute and GRPCRoute: several refs to one parent each name a distinct section. */
export const routeParentRefs = arr(parentReference, {
  maxItems: 32,
  rules: [
    rule('sectionName must be specified when parentRefs includes 2 or more references to the same parent', (self) => {
      const refs = asList(self);
      return refs.every((p1) =>
        refs.every((p2) =>
          sameParent(p1, p2) ? unsetOrEmpty(p1, 'sectionName') === unsetOrEmpty(p2, 'sectionName') : true,
        ),
      );
    }),
    rule('sectionName must be unique when parentRefs includes 2 or more references to the same parent', (self) => {
      const refs = asList(self);
      return refs.every((p1) => existsOne(refs, (p2) => sameParent(p1, p2) && sameSection(p1, p2)));
    }),
  ],
});

/** A reference to a backend object (a Service unless told otherwise). */
function backendObjectFields(): Record<string, SchemaNode> {
  return { group: group(''), kind: kind('Service'), name: objectName, namespace: namespaceName, port: portNumber };
}

const servicePortRule = rule('Must have port for Service reference', (self) => {
  const ref = asObject(self);
  return String(ref['group']).length === 0 && ref['kind'] === 'Service' ? has(ref, 'port') : true;
});

/** BackendObjectReference: a Service needs a port. */
export const backendObjectReference = obj(backendObjectFields(), { required: ['name'], rules: [servicePortRule] });

/** A weighted backend reference, with extra fields (a route's filters) when given. */
export function backendRef(extra: Record<string, SchemaNode> = {}): SchemaNode {
  return obj(
    { ...extra, ...backendObjectFields(), weight: int({ default: 1, maximum: 1000000, minimum: 0 }) },
    { required: ['name'], rules: [servicePortRule] },
  );
}

/** A metav1.Condition. */
export const condition = obj(
  {
    lastTransitionTime: str({ format: 'date-time' }),
    message: str({ maxLength: 32768 }),
    observedGeneration: int({ format: 'int64', minimum: 0 }),
    reason: str({ maxLength: 1024, minLength: 1, pattern: String.raw`^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$` }),
    status: str({ enum: ['True', 'False', 'Unknown'] }),
    type: str({
      maxLength: 316,
      pattern: String.raw`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$`,
    }),
  },
  { required: ['lastTransitionTime', 'message', 'reason', 'status', 'type'] },
);

/** A conditions list: at most 8, keyed by type. */
export function conditions(extra: { default?: unknown; minItems?: number } = {}): SchemaNode {
  return arr(condition, { maxItems: 8, listType: 'map', listMapKeys: ['type'], ...extra });
}

/** The status a controller reports for a route, per parent. */
export const routeStatus = obj(
  {
    parents: arr(
      obj(
        { conditions: conditions({ minItems: 1 }), controllerName, parentRef: parentReference },
        { required: ['controllerName', 'parentRef'] },
      ),
      { maxItems: 32 },
    ),
  },
  { required: ['parents'] },
);

/** An HTTP header name and value (header modifiers, header matches). */
export const headerNameField = str({ maxLength: 256, minLength: 1, pattern: headerNamePattern });

const headerValue = obj(
  { name: headerNameField, value: str({ maxLength: 4096, minLength: 1 }) },
  { required: ['name', 'value'] },
);

/** RequestHeaderModifier / ResponseHeaderModifier. */
export const headerModifier = obj({
  add: arr(headerValue, { maxItems: 16, listType: 'map', listMapKeys: ['name'] }),
  remove: arr(str(), { maxItems: 16, listType: 'set' }),
  set: arr(headerValue, { maxItems: 16, listType: 'map', listMapKeys: ['name'] }),
});

/** A match on a header (HTTP or gRPC), Exact by default. */
export const headerMatch = obj(
  {
    name: headerNameField,
    type: str({ default: 'Exact', enum: ['Exact', 'RegularExpression'] }),
    value: str({ maxLength: 4096, minLength: 1 }),
  },
  { required: ['name', 'value'] },
);

/** The RequestMirror filter. */
export const requestMirror = obj(
  {
    backendRef: backendObjectReference,
    fraction: obj(
      { denominator: int({ default: 100, minimum: 1 }), numerator: int({ minimum: 0 }) },
      {
        required: ['numerator'],
        rules: [
          rule('numerator must be less than or equal to denominator', (self) => {
            const f = asObject(self);
            return Number(f['numerator']) <= Number(f['denominator']);
          }),
        ],
      },
    ),
    percent: int({ maximum: 100, minimum: 0 }),
  },
  {
    required: ['backendRef'],
    rules: [
      rule('Only one of percent or fraction may be specified in HTTPRequestMirrorFilter', (self) => {
        const m = asObject(self);
        return !(has(m, 'percent') && has(m, 'fraction'));
      }),
    ],
  },
);

/** A reference to an implementation-specific filter. */
export const extensionRef = obj(
  { group: group(), kind: kind(), name: objectName },
  { required: ['group', 'kind', 'name'] },
);

/** The CRDs' pair of rules tying a filter type to its configuration field: set for that type, unset otherwise. */
export function filterFieldRules(types: readonly [string, string][]): SchemaRule[] {
  return types.flatMap(([type, fieldName]) => [
    rule(`filter.${fieldName} must be nil if the filter.type is not ${type}`, (self) => {
      const f = asObject(self);
      return !(has(f, fieldName) && f['type'] !== type);
    }),
    rule(`filter.${fieldName} must be specified for ${type} filter.type`, (self) => {
      const f = asObject(self);
      return !(!has(f, fieldName) && f['type'] === type);
    }),
  ]);
}

/** The rule that a filter type appears at most once in a list of filters. */
export function notRepeated(type: string): SchemaRule {
  return rule(
    `${type} filter cannot be repeated`,
    (self) => asList(self).filter((f) => f['type'] === type).length <= 1,
  );
}

/** Free-form string options (listener TLS options), at most 16. */
export const stringOptions = map(str({ maxLength: 4096, minLength: 0 }), { maxProperties: 16 });
