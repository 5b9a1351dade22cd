// The schemas of GRPCRoute (Gateway API v1.3.0 standard channel) and TLSRoute (v1alpha2, from the experimental
// channel), with their defaults and CEL rules.
import {
  backendRef,
  extensionRef,
  filterFieldRules,
  headerMatch,
  headerModifier,
  hostnames,
  notRepeated,
  parentReference,
  requestMirror,
  routeParentRefs,
  routeStatus,
  sameParent,
  sectionName,
} from './gateway-api-common.ts';
import { resourceRoot } from './gateway-schemas.ts';
import { totalMatches } from './route-schemas.ts';
import {
  arr,
  asList,
  asObject,
  existsOne,
  has,
  obj,
  rule,
  str,
  unsetOrEmpty,
  type SchemaRule,
} from './structural-schema.ts';

const grpcMethodPatterns = {
  service: String.raw`^(?i)\.?[a-z_][a-z_0-9]*(\.[a-z_][a-z_0-9]*)*$`,
  method: '^[A-Za-z_][A-Za-z_0-9]*$',
};

function grpcNameRule(fieldName: 'service' | 'method'): SchemaRule {
  const pattern = grpcMethodPatterns[fieldName];
  // RE2's inline (?i) is JavaScript's `i` flag.
  const re = fieldName === 'service' ? new RegExp(pattern.replace('(?i)', ''), 'i') : new RegExp(pattern);
  return rule(`${fieldName} must only contain valid characters (matching ${pattern})`, (self) => {
    const m = asObject(self);
    return (!has(m, 'type') || m['type'] === 'Exact') && has(m, fieldName) ? re.test(String(m[fieldName])) : true;
  });
}

const grpcMatch = obj({
  headers: arr(headerMatch, { maxItems: 16, listType: 'map', listMapKeys: ['name'] }),
  method: obj(
    {
      method: str({ maxLength: 1024 }),
      service: str({ maxLength: 1024 }),
      type: str({ default: 'Exact', enum: ['Exact', 'RegularExpression'] }),
    },
    {
      rules: [
        rule("One or both of 'service' or 'method' must be specified", (self) => {
          const m = asObject(self);
          return has(m, 'type') ? has(m, 'service') || has(m, 'method') : true;
        }),
        grpcNameRule('service'),
        grpcNameRule('method'),
      ],
    },
  ),
});

const grpcFilters = arr(
  obj(
    {
      extensionRef,
      requestHeaderModifier: headerModifier,
      requestMirror,
      responseHeaderModifier: headerModifier,
      type: str({ enum: ['ResponseHeaderModifier', 'RequestHeaderModifier', 'RequestMirror', 'ExtensionRef'] }),
    },
    {
      required: ['type'],
      rules: filterFieldRules([
        ['RequestHeaderModifier', 'requestHeaderModifier'],
        ['ResponseHeaderModifier', 'responseHeaderModifier'],
        ['RequestMirror', 'requestMirror'],
        ['ExtensionRef', 'extensionRef'],
      ]),
    },
  ),
  { maxItems: 16, rules: [notRepeated('RequestHeaderModifier'), notRepeated('ResponseHeaderModifier')] },
);

/** GRPCRoute: no spec is required, and matches have no default. */
export const grpcRouteSchema = resourceRoot(
  obj({
    hostnames,
    parentRefs: routeParentRefs,
    rules: arr(
      obj({
        backendRefs: arr(backendRef({ filters: grpcFilters }), { maxItems: 16 }),
        filters: grpcFilters,
        matches: arr(grpcMatch, { maxItems: 64 }),
      }),
      { maxItems: 16, rules: [totalMatches] },
    ),
  }),
  routeStatus,
  false,
);

function samePort(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const unset = (p: Record<string, unknown>) => !has(p, 'port') || p['port'] === 0;
  return (unset(a) && unset(b)) || (has(a, 'port') && has(b, 'port') && a['port'] === b['port']);
}

function sameSectionName(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  return (
    (unsetOrEmpty(a, 'sectionName') && unsetOrEmpty(b, 'sectionName')) ||
    (has(a, 'sectionName') && has(b, 'sectionName') && a['sectionName'] === b['sectionName'])
  );
}

const tlsParentRefs = arr(parentReference, {
  maxItems: 32,
  rules: [
    rule(
      'sectionName or port must be specified when parentRefs includes 2 or more references to the same parent',
      (self) => {
        const refs = asList(self);
        const noPort = (p: Record<string, unknown>) => !has(p, 'port') || p['port'] === 0;
        return refs.every((p1) =>
          refs.every((p2) =>
            sameParent(p1, p2)
              ? unsetOrEmpty(p1, 'sectionName') === unsetOrEmpty(p2, 'sectionName') && noPort(p1) === noPort(p2)
              : true,
          ),
        );
      },
    ),
    rule(
      'sectionName or port must be unique when parentRefs includes 2 or more references to the same parent',
      (self) => {
        const refs = asList(self);
        return refs.every((p1) =>
          existsOne(refs, (p2) => sameParent(p1, p2) && sameSectionName(p1, p2) && samePort(p1, p2)),
        );
      },
    ),
  ],
});

/** TLSRoute (v1alpha2): at least one rule, each with at least one backend. */
export const tlsRouteSchema = resourceRoot(
  obj(
    {
      hostnames,
      parentRefs: tlsParentRefs,
      rules: arr(obj({ backendRefs: arr(backendRef(), { maxItems: 16, minItems: 1 }), name: sectionName }), {
        maxItems: 16,
        minItems: 1,
        rules: [
          rule('Rule name must be unique within the route', (self) => {
            const all = asList(self);
            return all.every(
              (l1) => !has(l1, 'name') || existsOne(all, (l2) => has(l2, 'name') && l1['name'] === l2['name']),
            );
          }),
        ],
      }),
    },
    { required: ['rules'] },
  ),
  routeStatus,
  true,
);
