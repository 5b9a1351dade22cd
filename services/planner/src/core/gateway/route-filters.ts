import type { DriverKind, HeaderEdits, PathRewrite, RouteFilters } from '@portolan/desired-state';
import type { JsonValue } from '@portolan/kube-model';
import type { HttpRouteMatch, HttpRouteRule, RouteFilterInput } from './gateway-types.ts';

/** A rule's filters as the desired state carries them, or why a driver cannot serve the rule. */
export type FilterOutcome =
  { readonly ok: true; readonly filters: RouteFilters | undefined } | { readonly ok: false; readonly message: string };

/**
 * What each driver implements of HTTPRoute, beyond host and path Exact/PathPrefix matches to one backend (which
 * every driver serves). Several backends in a rule need member weights honoured by the balancing algorithm: every
 * driver sets one when weights differ (HAProxy weights its servers, vTM balances `weighted_round_robin`, LoadMaster
 * schedules `wrr`). HAProxy (ordered frontend rules) and vTM (TrafficScript request and response rules) implement
 * every match and filter below. LoadMaster content rules express header and method matches (match rules chained
 * by flags, nine per virtual service) and header edits (add/delete header rules on the route's SubVS); query
 * matches, regex paths, redirects and rewrites they cannot express exactly. A rule asking for more is refused on
 * that appliance with `UnsupportedValue`, never served in part. docs/gateway-api.md keeps this table for readers.
 */
const EVERY_FEATURE = [
  'weightedBackends',
  'RegularExpression',
  'headers',
  'queryParams',
  'method',
  'RequestHeaderModifier',
  'ResponseHeaderModifier',
  'RequestRedirect',
  'URLRewrite',
];
const FEATURES: Readonly<Record<DriverKind, ReadonlySet<string>>> = {
  haproxy: new Set(EVERY_FEATURE),
  vtm: new Set(EVERY_FEATURE),
  loadmaster: new Set(['weightedBackends', 'headers', 'method', 'RequestHeaderModifier', 'ResponseHeaderModifier']),
};

/** Why the driver cannot serve a rule's backends as weighted, or null. */
export function unsupportedBackends(driver: DriverKind, rule: HttpRouteRule): string | null {
  if (rule.backendRefs.length <= 1 || FEATURES[driver].has('weightedBackends')) return null;
  return `several backendRefs in one rule (weighted backends) are not supported by the ${driver} driver`;
}

/** The first feature of a match the driver lacks, or null. */
export function unsupportedMatchFeature(driver: DriverKind, m: HttpRouteMatch): string | null {
  const has = FEATURES[driver];
  if (m.path.type === 'RegularExpression' && !has.has('RegularExpression')) return 'path type RegularExpression';
  if (m.headers.length > 0 && !has.has('headers')) return 'header matches';
  if (m.queryParams.length > 0 && !has.has('queryParams')) return 'query parameter matches';
  if (m.method !== '' && !has.has('method')) return 'method matches';
  return null;
}

/** Translates a rule's filters for a driver: every filter it cannot implement refuses the rule. */
export function translateFilters(driver: DriverKind, rule: HttpRouteRule): FilterOutcome {
  const out: { -readonly [K in keyof RouteFilters]: RouteFilters[K] } = {};
  for (const f of rule.filters) {
    if (!FEATURES[driver].has(f.type))
      return { ok: false, message: `filter ${f.type} is not supported by the ${driver} driver` };
    if (f.type === 'RequestHeaderModifier') out.requestHeaders = headerEdits(field(f, 'requestHeaderModifier'));
    else if (f.type === 'ResponseHeaderModifier') out.responseHeaders = headerEdits(field(f, 'responseHeaderModifier'));
    else if (f.type === 'RequestRedirect') out.redirect = redirect(field(f, 'requestRedirect'));
    else if (f.type === 'URLRewrite') out.rewrite = rewrite(field(f, 'urlRewrite'));
  }
  if (out.redirect !== undefined && out.rewrite !== undefined)
    return { ok: false, message: 'a rule may not both redirect and rewrite' };
  return { ok: true, filters: Object.keys(out).length === 0 ? undefined : out };
}

type Json = { readonly [k: string]: JsonValue };

function field(f: RouteFilterInput, name: string): Json {
  const v = f[name];
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {};
}

const text = (v: JsonValue | undefined): string | undefined => (typeof v === 'string' ? v : undefined);

function pairs(v: JsonValue | undefined): { name: string; value: string }[] {
  return (Array.isArray(v) ? v : [])
    .map((p) => p as Json)
    .map((p) => ({ name: text(p['name']) ?? '', value: text(p['value']) ?? '' }))
    .filter((p) => p.name !== '')
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function headerEdits(m: Json): HeaderEdits {
  const remove = (Array.isArray(m['remove']) ? m['remove'] : []).filter((n): n is string => typeof n === 'string');
  return { set: pairs(m['set']), add: pairs(m['add']), remove: [...remove].sort() };
}

function pathRewrite(v: JsonValue | undefined): PathRewrite | undefined {
  const p = (typeof v === 'object' && v !== null && !Array.isArray(v) ? v : {}) as Json;
  if (p['type'] === 'ReplaceFullPath') return { type: 'ReplaceFullPath', value: text(p['replaceFullPath']) ?? '/' };
  if (p['type'] === 'ReplacePrefixMatch')
    return { type: 'ReplacePrefixMatch', value: text(p['replacePrefixMatch']) ?? '/' };
  return undefined;
}

function redirect(r: Json): NonNullable<RouteFilters['redirect']> {
  const scheme = text(r['scheme']);
  const hostname = text(r['hostname']);
  const port = typeof r['port'] === 'number' ? r['port'] : undefined;
  const path = pathRewrite(r['path']);
  const statusCode = typeof r['statusCode'] === 'number' ? r['statusCode'] : 302;
  return {
    ...(scheme === undefined ? {} : { scheme }),
    ...(hostname === undefined ? {} : { hostname }),
    ...(port === undefined ? {} : { port }),
    ...(path === undefined ? {} : { path }),
    statusCode,
  };
}

function rewrite(r: Json): NonNullable<RouteFilters['rewrite']> {
  const hostname = text(r['hostname']);
  const path = pathRewrite(r['path']);
  return { ...(hostname === undefined ? {} : { hostname }), ...(path === undefined ? {} : { path }) };
}
