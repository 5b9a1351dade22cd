import type { Route, ValueMatch } from '@portolan/desired-state';
import { firstMatchPerName } from '@portolan/routing';
import { HaproxyRouteRefusedError } from '../errors.ts';
import { anchoredRegex, configWord, requireName, requirePath } from './route-values.ts';

/** The ACLs one rule route declares, and the names its selection line ANDs (all must hold). */
export interface RouteConditions {
  readonly acls: readonly string[];
  readonly names: readonly string[];
}

/** HTTPRoute allows at most 16 header and 16 query matches; the bound also keeps a rule line under HAProxy's 64 words. */
const MAX_VALUE_MATCHES = 16;

/** Methods an HTTPRoute may match on. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH']);

/**
 * The conditions of rule route `k`, following the HTTPRoute match semantics: Exact compares the whole raw path,
 * Prefix matches element by element (`/foo` matches `/foo`, `/foo/` and `/foo/bar`, not `/foobar`; a trailing `/`
 * is ignored), Regex must match the whole path; header names compare case-insensitively, query parameter names
 * exactly (the value decoded as a form value); only the first of several matches naming the same header or
 * parameter counts, as the specification says. Each ACL is declared with `--` so no value can read as a flag.
 */
export function routeConditions(route: Route, k: number): RouteConditions {
  const acls: string[] = [];
  const names: string[] = [];
  const path = pathAcls(route, `gw_r${k}_p`);
  if (path.length > 0) {
    acls.push(...path);
    names.push(`gw_r${k}_p`);
  }
  const headers = firstMatchPerName(route.headers ?? [], (n) => n.toLowerCase());
  const query = firstMatchPerName(route.queryParams ?? [], (n) => n);
  if (headers.length > MAX_VALUE_MATCHES || query.length > MAX_VALUE_MATCHES)
    throw new HaproxyRouteRefusedError(route, `more than ${MAX_VALUE_MATCHES} header or query parameter matches`);
  headers.forEach((h, j) => {
    const fetch = `req.fhdr(${requireName(route, 'header', h.name)})`;
    acls.push(`acl gw_r${k}_h${j} ${fetch} ${valuePattern(route, `header ${h.name}`, h)}`);
    names.push(`gw_r${k}_h${j}`);
  });
  query.forEach((q, j) => {
    const fetch = `url_param(${requireName(route, 'query parameter', q.name)}),url_dec(1)`;
    acls.push(`acl gw_r${k}_q${j} ${fetch} ${valuePattern(route, `query parameter ${q.name}`, q)}`);
    names.push(`gw_r${k}_q${j}`);
  });
  if (route.method !== undefined) {
    if (!METHODS.has(route.method))
      throw new HaproxyRouteRefusedError(route, `method ${JSON.stringify(route.method)} is not supported`);
    acls.push(`acl gw_r${k}_m method ${route.method}`);
    names.push(`gw_r${k}_m`);
  }
  return { acls, names };
}

/** The path ACL lines of a route (several lines of one name are OR-ed); none when any path matches. */
function pathAcls(route: Route, name: string): string[] {
  if (route.match === 'Regex') return [`acl ${name} path -m reg -- ${anchoredRegex(route, 'path regex', route.path)}`];
  if (route.path === '') return [];
  requirePath(route, 'path', route.path);
  if (route.match === 'Exact') return [`acl ${name} path -m str -- ${configWord(route, 'path', route.path)}`];
  const trimmed = route.path.replace(/\/+$/, '');
  if (trimmed === '') return [];
  return [
    `acl ${name} path -m str -- ${configWord(route, 'path', trimmed)}`,
    `acl ${name} path -m beg -- ${configWord(route, 'path', `${trimmed}/`)}`,
  ];
}

function valuePattern(route: Route, what: string, match: ValueMatch): string {
  if (match.type === 'Regex') return `-m reg -- ${anchoredRegex(route, `${what} regex`, match.value)}`;
  if (match.type === 'Exact') return `-m str -- ${configWord(route, what, match.value)}`;
  throw new HaproxyRouteRefusedError(route, `${what}: match type ${JSON.stringify(match.type)} is not supported`);
}
