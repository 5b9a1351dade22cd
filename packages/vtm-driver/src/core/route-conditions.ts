import type { Route, ValueMatch } from '@portolan/desired-state';
import { firstMatchPerName } from '@portolan/routing';
import { anchoredRegex, regexLiteral, requireName, VtmRouteRefusedError } from './route-values.ts';
import { tsString } from './ts-string.ts';

/** Methods an HTTPRoute may match on. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH']);

/** The variable the routing rule holds the request's query string in (read once, before any route). */
export const QUERY_VARIABLE = '$query';

/**
 * The TrafficScript conditions of a route beyond its host, all of which must hold, following the HTTPRoute match
 * semantics the HAProxy driver gives them: Exact compares the whole path, Prefix matches element by element, Regex
 * must match the whole path; a header must be present and its value (fields joined) equal or match the whole
 * regex, names compared case-insensitively; a query parameter is its first occurrence in the query string, name
 * compared exactly, value form-decoded (`+` is a space, then `%XX`); only the first of several matches naming the
 * same header or parameter counts, as the specification says.
 */
export function routeConditions(route: Route): string[] {
  const conditions: string[] = [];
  const path = pathCondition(route);
  if (path !== null) conditions.push(path);
  for (const h of firstMatchPerName(route.headers ?? [], (n) => n.toLowerCase())) {
    const name = tsString(requireName(route, 'header', h.name));
    conditions.push(
      `http.headerExists(${name}) && ${valueTest(route, `header ${h.name}`, h, `http.getHeader(${name})`)}`,
    );
  }
  for (const q of firstMatchPerName(route.queryParams ?? [], (n) => n)) {
    const name = regexLiteral(requireName(route, 'query parameter', q.name));
    // `$2` is the raw value of the first `name=` in the query string, set by the regexMatch just before it.
    const found = `string.regexMatch(${QUERY_VARIABLE}, ${tsString(`(^|&)${name}=([^&]*)`)})`;
    const value = 'string.urlDecode(string.replaceAll($2, "+", " "))';
    conditions.push(`(${found} && ${valueTest(route, `query parameter ${q.name}`, q, value)})`);
  }
  if (route.method !== undefined) {
    if (!METHODS.has(route.method))
      throw new VtmRouteRefusedError(route, `method ${JSON.stringify(route.method)} is not supported`);
    conditions.push(`http.getMethod() == ${tsString(route.method)}`);
  }
  return conditions;
}

/** Whether a route needs the query string variable. */
export function usesQuery(route: Route): boolean {
  return (route.queryParams?.length ?? 0) > 0 || route.filters?.redirect !== undefined;
}

/**
 * Path matching: Exact is string equality; Prefix matches whole path elements (a trailing `/` is ignored); Regex
 * must match the whole path. Null when any path matches.
 */
export function pathCondition(route: Pick<Route, 'path' | 'match' | 'source' | 'host'>): string | null {
  if (route.match === 'Regex')
    return `string.regexMatch($path, ${tsString(anchoredRegex(route, 'path regex', route.path))})`;
  if (route.path === '') return null;
  if (route.match === 'Exact') return `$path == ${tsString(route.path)}`;
  const prefix = route.path.replace(/\/+$/, '');
  if (prefix === '') return null;
  return `($path == ${tsString(prefix)} || string.startsWith($path, ${tsString(`${prefix}/`)}))`;
}

function valueTest(route: Route, what: string, match: ValueMatch, value: string): string {
  if (match.type === 'Regex')
    return `string.regexMatch(${value}, ${tsString(anchoredRegex(route, `${what} regex`, match.value))})`;
  if (match.type === 'Exact') return `${value} == ${tsString(match.value)}`;
  throw new VtmRouteRefusedError(route, `${what}: match type ${JSON.stringify(match.type)} is not supported`);
}
