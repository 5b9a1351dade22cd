import type { HeaderEdits, PathRewrite, Route } from '@portolan/desired-state';
import { redirectDestination } from '@portolan/routing';
import { QUERY_VARIABLE } from './route-conditions.ts';
import {
  requireFieldValue,
  requireHostname,
  requireInteger,
  requireName,
  requirePath,
  VtmRouteRefusedError,
} from './route-values.ts';
import { tsString } from './ts-string.ts';

/** The listener a route is served on: redirects keep its scheme and port when the filter leaves them unset. */
export interface RouteListener {
  readonly protocol: 'http' | 'https';
  readonly port: number;
}

/** The `connection.data` key naming the route a request matched, for the response rule (see `responseRule`). */
export const ROUTE_KEY = 'portolan-route';

/** Redirect codes HTTPRoute allows. */

/** Reason phrases of the status lines the rules write (RFC 9110). */
const REASONS: Readonly<Record<number, string>> = {
  200: 'OK',
  301: 'Moved Permanently',
  302: 'Found',
  303: 'See Other',
  307: 'Temporary Redirect',
  308: 'Permanent Redirect',
  400: 'Bad Request',
  403: 'Forbidden',
  404: 'Not Found',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/**
 * The statements of route `k` once its conditions hold: a redirect or a fixed status answered with
 * `http.sendResponse` (the route's response header set/add go into that answer, since response rules do not run
 * on it), or request header edits (remove, set, add: a name both removed and added ends with the added value),
 * the rewrites, the route marker for the response rule, and `pool.use`.
 */
export function routeActions(route: Route, k: number, pool: string, listener: RouteListener): string[] {
  const filters = route.filters ?? {};
  if (filters.redirect !== undefined && filters.rewrite !== undefined)
    throw new VtmRouteRefusedError(route, 'a redirect and a rewrite together');
  // Per-route ssl-redirect (an Ingress's TLS host on a listener it shares with plain-http Ingresses).
  if (route.redirectToHttpsPort !== undefined) {
    const port = route.redirectToHttpsPort === 443 ? '' : `:${route.redirectToHttpsPort}`;
    const location = `"Location: https://" . $host . ${tsString(port)} . http.getRawURL()`;
    return [`http.sendResponse("308 Permanent Redirect", "text/plain", "", ${location});`];
  }
  const extra = answerHeaders(route, filters.responseHeaders);
  if (filters.redirect !== undefined) return redirectLines(route, filters.redirect, listener, extra);
  if (route.fixedStatus !== undefined) {
    const status = requireInteger(route, 'status', route.fixedStatus, 200, 599);
    return [`http.sendResponse(${tsString(statusLine(status))}, "text/plain", "", ${tsString(extra.slice(2))});`];
  }
  const lines = headerEdits(route, filters.requestHeaders);
  const rewrite = filters.rewrite;
  if (rewrite?.hostname !== undefined)
    lines.push(`http.setHeader("Host", ${tsString(requireHostname(route, 'rewrite hostname', rewrite.hostname))});`);
  if (rewrite?.path !== undefined) {
    const path = newPath(route, rewrite.path);
    if (path !== null) lines.push(...path.setup, `http.setPath(${path.expression});`);
  }
  if (hasEdits(filters.responseHeaders))
    lines.push(`connection.data.set(${tsString(ROUTE_KEY)}, ${tsString(String(k))});`);
  lines.push(`pool.use(${tsString(pool)});`);
  return lines;
}

/** Whether header edits change anything. */
export function hasEdits(edits: HeaderEdits | undefined): edits is HeaderEdits {
  return edits !== undefined && edits.set.length + edits.add.length + edits.remove.length > 0;
}

/** Header edits as statements of one side: `http.<verb>Header` or `http.<verb>ResponseHeader`. */
export function headerEdits(route: Route, edits: HeaderEdits | undefined, side: '' | 'Response' = ''): string[] {
  if (edits === undefined) return [];
  const name = (n: string): string => tsString(requireName(route, 'header', n));
  const value = (h: { name: string; value: string }): string =>
    tsString(requireFieldValue(route, `header ${h.name}`, h.value));
  return [
    ...edits.remove.map((n) => `http.remove${side}Header(${name(n)});`),
    ...edits.set.map((h) => `http.set${side}Header(${name(h.name)}, ${value(h)});`),
    ...edits.add.map((h) => `http.add${side}Header(${name(h.name)}, ${value(h)});`),
  ];
}

/** `Name: value` lines (CRLF-separated) for an answer the rule writes itself: the set and add response edits. */
function answerHeaders(route: Route, edits: HeaderEdits | undefined): string {
  if (edits === undefined) return '';
  return [...edits.set, ...edits.add]
    .map((h) => `\r\n${requireName(route, 'header', h.name)}: ${requireFieldValue(route, `header ${h.name}`, h.value)}`)
    .join('');
}

function statusLine(status: number): string {
  return `${status} ${REASONS[status] ?? 'Status'}`;
}

/**
 * The new path as an expression over `$path` (the request's), plus statements preparing it; null when the rewrite
 * changes nothing. ReplacePrefixMatch replaces the part the route's Prefix matched, element-wise: prefix `/foo`
 * with `/bar` maps `/foo/x` to `/bar/x` and `/foo` to `/bar`; with `/` it maps `/foo/x` to `/x` and `/foo` to `/`.
 */
function newPath(route: Route, rewrite: PathRewrite): { setup: string[]; expression: string } | null {
  const value = requirePath(route, 'rewrite path', rewrite.value);
  if (rewrite.type === 'ReplaceFullPath') return { setup: [], expression: tsString(value) };
  if (rewrite.type !== 'ReplacePrefixMatch')
    throw new VtmRouteRefusedError(route, `path rewrite ${JSON.stringify(rewrite.type)} is not supported`);
  if (route.match !== 'Prefix') throw new VtmRouteRefusedError(route, 'ReplacePrefixMatch without a Prefix match');
  const prefix = route.path === '' ? '' : requirePath(route, 'path', route.path).replace(/\/+$/, '');
  const replacement = value.replace(/\/+$/, '');
  const rest = prefix === '' ? '$path' : `string.skip($path, ${prefix.length})`;
  if (replacement !== '') return { setup: [], expression: `${tsString(replacement)} . ${rest}` };
  if (prefix === '') return null;
  return { setup: [`$rest = ${rest};`, 'if ($rest == "") { $rest = "/"; }'], expression: '$rest' };
}

/**
 * A redirect: scheme, host and port default to the request's (the listener's scheme and port; a scheme given alone
 * implies its well-known port), a port that is the scheme's default is left out of Location; the path (rewritten
 * when the filter says so) keeps the query string.
 */
function redirectLines(
  route: Route,
  redirect: NonNullable<NonNullable<Route['filters']>['redirect']>,
  listener: RouteListener,
  extra: string,
): string[] {
  const target = redirectDestination(redirect, listener);
  if (!target.ok) throw new VtmRouteRefusedError(route, target.reason);
  const host = target.hostname === undefined ? '$host' : tsString(target.hostname);
  const { scheme, portPart } = target;
  const path = redirect.path === undefined ? null : newPath(route, redirect.path);
  const setup = [...(path?.setup ?? []), `$location = ${path?.expression ?? '$path'};`];
  setup.push(`if (${QUERY_VARIABLE} != "") { $location = $location . "?" . ${QUERY_VARIABLE}; }`);
  const location = [tsString(`Location: ${scheme}://`), host, portPart === '' ? null : tsString(portPart), '$location']
    .concat(extra === '' ? [] : [tsString(extra)])
    .filter((part): part is string => part !== null)
    .join(' . ');
  return [...setup, `http.sendResponse(${tsString(statusLine(redirect.statusCode))}, "text/plain", "", ${location});`];
}
