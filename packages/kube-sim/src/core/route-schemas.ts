// The schema of HTTPRoute (Gateway API v1.3.0 standard channel; v1 and v1beta1 are the same schema), with its
// defaults and CEL rules.
import {
  backendRef,
  extensionRef,
  filterFieldRules,
  headerMatch,
  headerModifier,
  headerNameField,
  hostnames,
  notRepeated,
  portNumber,
  requestMirror,
  routeParentRefs,
  routeStatus,
  sectionName,
} from './gateway-api-common.ts';
import { resourceRoot } from './gateway-schemas.ts';
import {
  arr,
  asList,
  asObject,
  existsOne,
  has,
  int,
  obj,
  rule,
  str,
  type SchemaNode,
  type SchemaRule,
} from './structural-schema.ts';

const exactOrPrefix = "when type one of ['Exact', 'PathPrefix']";
const pathCharacters = String.raw`^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|[%][0-9a-fA-F]{2})+$`;

/** A rule on a path match that only binds Exact and PathPrefix paths. */
function pathRule(message: string, check: (value: string) => boolean): SchemaRule {
  return rule(message, (self) => {
    const p = asObject(self);
    return p['type'] === 'Exact' || p['type'] === 'PathPrefix' ? check(String(p['value'])) : true;
  });
}

const pathMatch = obj(
  {
    type: str({ default: 'PathPrefix', enum: ['Exact', 'PathPrefix', 'RegularExpression'] }),
    value: str({ default: '/', maxLength: 1024 }),
  },
  {
    default: { type: 'PathPrefix', value: '/' },
    rules: [
      pathRule(`value must be an absolute path and start with '/' ${exactOrPrefix}`, (v) => v.startsWith('/')),
      ...['//', '/./', '/../', '%2f', '%2F', '#'].map((s) =>
        pathRule(`must not contain '${s}' ${exactOrPrefix}`, (v) => !v.includes(s)),
      ),
      ...['/..', '/.'].map((s) => pathRule(`must not end with '${s}' ${exactOrPrefix}`, (v) => !v.endsWith(s))),
      rule("type must be one of ['Exact', 'PathPrefix', 'RegularExpression']", (self) =>
        ['Exact', 'PathPrefix', 'RegularExpression'].includes(String(asObject(self)['type'])),
      ),
      pathRule(
        `must only contain valid characters (matching ${pathCharacters}) for types ['Exact', 'PathPrefix']`,
        (v) => new RegExp(pathCharacters).test(v),
      ),
    ],
  },
);

const httpMatch = obj({
  headers: arr(headerMatch, { maxItems: 16, listType: 'map', listMapKeys: ['name'] }),
  method: str({ enum: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH'] }),
  path: pathMatch,
  queryParams: arr(
    obj(
      {
        name: headerNameField,
        type: str({ default: 'Exact', enum: ['Exact', 'RegularExpression'] }),
        value: str({ maxLength: 1024, minLength: 1 }),
      },
      { required: ['name', 'value'] },
    ),
    { maxItems: 16, listType: 'map', listMapKeys: ['name'] },
  ),
});

function modifierRules(): SchemaRule[] {
  return (['ReplaceFullPath', 'ReplacePrefixMatch'] as const).flatMap((type) => {
    const fieldName = type === 'ReplaceFullPath' ? 'replaceFullPath' : 'replacePrefixMatch';
    return [
      rule(`${fieldName} must be specified when type is set to '${type}'`, (self) => {
        const p = asObject(self);
        return p['type'] === type ? has(p, fieldName) : true;
      }),
      rule(`type must be '${type}' when ${fieldName} is set`, (self) => {
        const p = asObject(self);
        return has(p, fieldName) ? p['type'] === type : true;
      }),
    ];
  });
}

const pathModifier = obj(
  {
    replaceFullPath: str({ maxLength: 1024 }),
    replacePrefixMatch: str({ maxLength: 1024 }),
    type: str({ enum: ['ReplaceFullPath', 'ReplacePrefixMatch'] }),
  },
  { required: ['type'], rules: modifierRules() },
);

const httpFilter = obj(
  {
    extensionRef,
    requestHeaderModifier: headerModifier,
    requestMirror,
    requestRedirect: obj({
      hostname: sectionName,
      path: pathModifier,
      port: portNumber,
      scheme: str({ enum: ['http', 'https'] }),
      statusCode: int({ default: 302, enum: [301, 302] }),
    }),
    responseHeaderModifier: headerModifier,
    type: str({
      enum: [
        'RequestHeaderModifier',
        'ResponseHeaderModifier',
        'RequestMirror',
        'RequestRedirect',
        'URLRewrite',
        'ExtensionRef',
      ],
    }),
    urlRewrite: obj({ hostname: sectionName, path: pathModifier }),
  },
  {
    required: ['type'],
    rules: filterFieldRules([
      ['RequestHeaderModifier', 'requestHeaderModifier'],
      ['ResponseHeaderModifier', 'responseHeaderModifier'],
      ['RequestMirror', 'requestMirror'],
      ['RequestRedirect', 'requestRedirect'],
      ['URLRewrite', 'urlRewrite'],
      ['ExtensionRef', 'extensionRef'],
    ]),
  },
);

const redirectOrRewrite = rule(
  'May specify either httpRouteFilterRequestRedirect or httpRouteFilterRequestRewrite, but not both',
  (self) => {
    const filters = asList(self);
    return !(filters.some((f) => f['type'] === 'RequestRedirect') && filters.some((f) => f['type'] === 'URLRewrite'));
  },
);

const repeatable = ['RequestHeaderModifier', 'ResponseHeaderModifier', 'RequestRedirect', 'URLRewrite'];

/** A rule's filters; a backendRef's filters list the redirect-or-rewrite rule twice, as the CRD does. */
function httpFilters(onBackend: boolean): SchemaNode {
  const either = onBackend ? [redirectOrRewrite, redirectOrRewrite] : [redirectOrRewrite];
  return arr(httpFilter, { maxItems: 16, rules: [...either, ...repeatable.map(notRepeated)] });
}

/** The filters of a list replace a prefix match through `which` (requestRedirect or urlRewrite). */
function replacesPrefix(filters: unknown, which: string): boolean {
  return existsOne(asList(filters), (f) => {
    const path = asObject(asObject(f[which])['path']);
    return (
      has(f, which) &&
      has(asObject(f[which]), 'path') &&
      path['type'] === 'ReplacePrefixMatch' &&
      has(path, 'replacePrefixMatch')
    );
  });
}

function onePrefixMatch(r: Record<string, unknown>): boolean {
  const matches = asList(r['matches']);
  const first = matches[0] ?? {};
  return !(matches.length !== 1 || !has(first, 'path') || asObject(first['path'])['type'] !== 'PathPrefix');
}

function prefixReplacementRules(): SchemaRule[] {
  const names = [
    ['requestRedirect', 'RequestRedirect', 'when'],
    ['urlRewrite', 'URLRewrite', 'When'],
  ] as const;
  const direct = names.map(([which, name]) =>
    rule(
      `When using ${name} filter with path.replacePrefixMatch, exactly one PathPrefix match must be specified`,
      (self) => {
        const r = asObject(self);
        return has(r, 'filters') && replacesPrefix(r['filters'], which) ? onePrefixMatch(r) : true;
      },
    ),
  );
  const viaBackends = names.map(([which, name, when]) =>
    rule(
      `Within backendRefs, ${when} using ${name} filter with path.replacePrefixMatch, exactly one PathPrefix match must be specified`,
      (self) => {
        const r = asObject(self);
        const refs = asList(r['backendRefs']);
        const any =
          has(r, 'backendRefs') && existsOne(refs, (b) => has(b, 'filters') && replacesPrefix(b['filters'], which));
        return any ? onePrefixMatch(r) : true;
      },
    ),
  );
  return [...direct, ...viaBackends];
}

/** Go duration text (`1h30m`, `500ms`) in milliseconds; NaN when it is not one. */
function durationMs(text: unknown): number {
  const units: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
  const parts = [...String(text).matchAll(/(\d+)(ms|h|m|s)/g)];
  if (parts.map((p) => p[0]).join('') !== String(text)) return Number.NaN;
  return parts.reduce((sum, p) => sum + Number(p[1]) * (units[p[2] ?? ''] ?? 0), 0);
}

const duration = str({ pattern: '^([0-9]{1,5}(h|m|s|ms)){1,4}$' });

const httpRule = obj(
  {
    backendRefs: arr(backendRef({ filters: httpFilters(true) }), { maxItems: 16 }),
    filters: httpFilters(false),
    matches: arr(httpMatch, { default: [{ path: { type: 'PathPrefix', value: '/' } }], maxItems: 64 }),
    timeouts: obj(
      { backendRequest: duration, request: duration },
      {
        rules: [
          rule('backendRequest timeout cannot be longer than request timeout', (self) => {
            const t = asObject(self);
            if (!has(t, 'request') || !has(t, 'backendRequest')) return true;
            const request = durationMs(t['request']);
            return !(request !== 0 && durationMs(t['backendRequest']) > request);
          }),
        ],
      },
    ),
  },
  {
    rules: [
      rule('RequestRedirect filter must not be used together with backendRefs', (self) => {
        const r = asObject(self);
        if (!has(r, 'backendRefs') || asList(r['backendRefs']).length === 0) return true;
        return !has(r, 'filters') || asList(r['filters']).every((f) => !has(f, 'requestRedirect'));
      }),
      ...prefixReplacementRules(),
    ],
  },
);

/** The total-matches rule; HTTPRoute's CEL reads `matches` directly (it is defaulted), GRPCRoute's checks has(). */
export const totalMatches = rule(
  'While 16 rules and 64 matches per rule are allowed, the total number of matches across all rules in a route must be less than 128',
  (self) =>
    asList(self)
      .slice(0, 16)
      .reduce((sum, r) => sum + asList(r['matches']).length, 0) <= 128,
);

/** HTTPRoute: one rule matching every path when no rules are given. */
export const httpRouteSchema = resourceRoot(
  obj({
    hostnames,
    parentRefs: routeParentRefs,
    rules: arr(httpRule, {
      default: [{ matches: [{ path: { type: 'PathPrefix', value: '/' } }] }],
      maxItems: 16,
      rules: [totalMatches],
    }),
  }),
  routeStatus,
  true,
);
