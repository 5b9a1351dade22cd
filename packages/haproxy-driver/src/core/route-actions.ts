import type { HeaderEdits, PathRewrite, Route } from '@portolan/desired-state';
import { redirectDestination } from '@portolan/routing';
import { HaproxyRouteRefusedError } from '../errors.ts';
import { redirectTarget } from './routing-maps.ts';
import {
  configWord,
  logFormatWord,
  requireHostname,
  requireInteger,
  requireName,
  requirePath,
} from './route-values.ts';

/** The listener a rule route is served on: redirects keep its scheme and port when the filter leaves them unset. */
export interface RuleListener {
  readonly protocol: 'http' | 'https';
  readonly port: number;
}

/** What a selected rule route does: request-side lines (final ones last) and response-side lines. */
export interface RouteActions {
  readonly request: readonly string[];
  readonly response: readonly string[];
}

/** Redirect codes HTTPRoute allows (and HAProxy's `redirect` knows). */

/**
 * The actions of rule route `k` once selected (`if gw_r<k>`): request header edits, then either a redirect, a
 * fixed status, or the rewrites and the backend. A route whose pool has no backend answers 500, as HTTPRoute asks
 * of a rule without a usable backend, rather than falling through to a route of lower precedence.
 */
export function routeActions(
  route: Route,
  k: number,
  listener: RuleListener,
  backendOf: (pool: string) => string | null,
): RouteActions {
  const when = `if gw_r${k}`;
  const filters = route.filters ?? {};
  const request = headerEdits(route, 'http-request', filters.requestHeaders).map((l) => `${l} ${when}`);
  const response = headerEdits(route, 'http-after-response', filters.responseHeaders).map((l) => `${l} ${when}`);
  if (filters.redirect !== undefined && filters.rewrite !== undefined)
    throw new HaproxyRouteRefusedError(route, 'a redirect and a rewrite together');
  if (filters.redirect !== undefined) {
    request.push(...redirectLines(route, filters.redirect, listener).map((l) => `${l} ${when}`));
  } else if (route.fixedStatus !== undefined) {
    request.push(`http-request return status ${requireInteger(route, 'status', route.fixedStatus, 200, 599)} ${when}`);
  } else {
    const rewrite = filters.rewrite;
    if (rewrite?.hostname !== undefined)
      request.push(
        `http-request set-header Host ${configWord(route, 'hostname', requireHostname(route, 'rewrite hostname', rewrite.hostname))} ${when}`,
      );
    if (rewrite?.path !== undefined) request.push(...pathLines(route, rewrite.path).map((l) => `${l} ${when}`));
    request.push(`${backendLine(route, backendOf)} ${when}`);
  }
  return { request, response };
}

/** Where a proxied route goes: its backend, the per-route https redirect, or 500 without a backend. */
function backendLine(route: Route, backendOf: (pool: string) => string | null): string {
  if (route.redirectToHttpsPort !== undefined)
    return `http-request set-var(txn.be) str(${redirectTarget(requireInteger(route, 'https port', route.redirectToHttpsPort, 1, 65535))})`;
  const backend = backendOf(route.pool);
  return backend === null ? 'http-request return status 500' : `http-request set-var(txn.be) str(${backend})`;
}

/** Header edits in the order remove, set, add (so a name both removed and added ends up with the added value). */
function headerEdits(route: Route, phase: string, edits: HeaderEdits | undefined): string[] {
  if (edits === undefined) return [];
  return [
    ...edits.remove.map((name) => `${phase} del-header ${requireName(route, 'header', name)}`),
    ...edits.set.map(
      (h) =>
        `${phase} set-header ${requireName(route, 'header', h.name)} ${logFormatWord(route, `header ${h.name}`, h.value)}`,
    ),
    ...edits.add.map(
      (h) =>
        `${phase} add-header ${requireName(route, 'header', h.name)} ${logFormatWord(route, `header ${h.name}`, h.value)}`,
    ),
  ];
}

/**
 * The request path rewrite (it keeps the query string). ReplacePrefixMatch replaces the part the route's Prefix
 * matched, element-wise: prefix `/foo` with `/bar` maps `/foo/x` to `/bar/x` and `/foo` to `/bar`; with `/` it maps
 * `/foo/x` to `/x` and `/foo` to `/` (a path is never left empty).
 */
function pathLines(route: Route, rewrite: PathRewrite): string[] {
  const value = requirePath(route, 'rewrite path', rewrite.value);
  if (rewrite.type === 'ReplaceFullPath') return [`http-request set-path ${logFormatWord(route, 'path', value)}`];
  if (rewrite.type !== 'ReplacePrefixMatch')
    throw new HaproxyRouteRefusedError(route, `path rewrite ${JSON.stringify(rewrite.type)} is not supported`);
  if (route.match !== 'Prefix') throw new HaproxyRouteRefusedError(route, 'ReplacePrefixMatch without a Prefix match');
  const prefix = route.path === '' ? '' : requirePath(route, 'path', route.path).replace(/\/+$/, '');
  const replacement = value.replace(/\/+$/, '').replaceAll('%', '%%');
  const matched = prefix.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');
  if (replacement !== '')
    return [
      `http-request replace-path ${configWord(route, 'path', `^${matched}(/.*)?$`)} ${configWord(route, 'path', `${replacement}\\1`)}`,
    ];
  if (prefix === '') return [];
  return [
    `http-request replace-path ${configWord(route, 'path', `^${matched}/?$`)} '/'`,
    `http-request replace-path ${configWord(route, 'path', `^${matched}(/.*)$`)} '\\1'`,
  ];
}

/**
 * A redirect: scheme, host and port default to the request's (the listener's scheme and port; a scheme given
 * alone implies its well-known port), and a port that is the scheme's default is left out of Location. A path
 * rewrite is applied to the request first, so Location reads the path and query string from it.
 */
function redirectLines(
  route: Route,
  redirect: NonNullable<NonNullable<Route['filters']>['redirect']>,
  listener: RuleListener,
): string[] {
  const target = redirectDestination(redirect, listener);
  if (!target.ok) throw new HaproxyRouteRefusedError(route, target.reason);
  const host = target.hostname ?? '%[var(txn.host)]';
  const { scheme, portPart } = target;
  const location = configWord(route, 'location', `${scheme}://${host}${portPart}%[pathq]`);
  return [
    ...(redirect.path === undefined ? [] : pathLines(route, redirect.path)),
    `http-request redirect location ${location} code ${redirect.statusCode}`,
  ];
}
