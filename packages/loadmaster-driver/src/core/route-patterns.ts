import type { Route } from '@portolan/desired-state';
import { PortolanError } from '@portolan/errors';

/**
 * Content-rule regexes giving exact Ingress semantics on the LoadMaster. Every rule is a URL rule with
 * `inchost=1`, so the subject is `<Host header><path>` (e.g. `shop.example.com:443/cart/items`) and one regex
 * decides host AND path together. (Separate `header=Host` rules would need flag chaining to be AND-ed, and
 * there are only nine flags for the whole VS — not enough for many hosts.)
 *
 * - host: exact (case-insensitive, optional `:port`), `*.suffix` = exactly one extra label (any number with
 *   `wildcardLabels: 'any'`, Gateway API), '' = any host;
 * - path: Exact = that path only; Prefix = element-wise (`/foo` matches `/foo` and `/foo/…`, not `/foobar`);
 *   '' = any path.
 * Precedence without relying on rule order: a route's regex starts with negative lookaheads excluding every
 * EARLIER route (routes arrive in precedence order) that sends to another pool and can match the same request.
 * So the rules of one VS are mutually exclusive and the appliance's evaluation order cannot change the outcome.
 */

/** How many labels a wildcard host covers: one (Ingress) or any number (Gateway API `wildcardLabels: 'any'`). */
export type WildcardLabels = 'one' | 'any';

/** The positive (unanchored at start) regex body of one route: host part then path part, `$`-anchored. */
export function routeBody(route: Pick<Route, 'host' | 'path' | 'match'>, labels: WildcardLabels = 'one'): string {
  return `${hostPart(route.host, labels)}${pathPart(route.path, route.match)}`;
}

/** The full `/…/` pattern for route `index` of `routes` (precedence order). */
export function routePattern(routes: readonly Route[], index: number, labels: WildcardLabels = 'one'): string {
  const route = routes[index];
  if (route === undefined) throw new RoutePatternError(`route ${index} out of range`);
  const exclusions = routes
    .slice(0, index)
    .filter((earlier) => earlier.pool !== route.pool && canOverlap(earlier, route, labels))
    .map((earlier) => `(?!${routeBody(earlier, labels)})`);
  return `/^${exclusions.join('')}${routeBody(route, labels)}/`;
}

function hostPart(host: string, labels: WildcardLabels): string {
  if (host === '') return '[^/]*';
  const label = labels === 'any' ? '[^/:]+' : '[^./:]+';
  if (host.startsWith('*.')) return `(?i:${label}${escapeRegex(host.slice(1))})(?::[0-9]+)?`;
  return `(?i:${escapeRegex(host)})(?::[0-9]+)?`;
}

function pathPart(path: string, match: Route['match']): string {
  if (path === '') return '(?:\\/.*)?$';
  if (match === 'Exact') return `${escapeRegex(path)}$`;
  const trimmed = path.replace(/\/+$/, '');
  return trimmed === '' ? '\\/.*$' : `${escapeRegex(trimmed)}(?:\\/.*)?$`;
}

/** Conservative: false only when the two routes' hosts and paths provably match disjoint requests. */
export function canOverlap(
  a: Pick<Route, 'host' | 'path' | 'match'>,
  b: Pick<Route, 'host' | 'path' | 'match'>,
  labels: WildcardLabels,
): boolean {
  return hostsOverlap(a.host, b.host, labels) && pathsOverlap(a, b);
}

function hostsOverlap(a: string, b: string, labels: WildcardLabels): boolean {
  if (a === '' || b === '' || a === b) return true;
  const wild = (w: string, h: string): boolean =>
    w.startsWith('*.') && h.endsWith(w.slice(1)) && (labels === 'any' || !h.slice(0, -w.length + 1).includes('.'));
  return wild(a, b) || wild(b, a) || (a.startsWith('*.') && b.startsWith('*.'));
}

function pathsOverlap(a: Pick<Route, 'path' | 'match'>, b: Pick<Route, 'path' | 'match'>): boolean {
  if (a.path === '' || b.path === '') return true;
  const covers = (p: Pick<Route, 'path' | 'match'>, q: string): boolean => {
    if (p.match === 'Exact') return p.path === q;
    const base = p.path.replace(/\/+$/, '');
    return q === base || q.startsWith(`${base}/`) || base === '';
  };
  return covers(a, b.path) || covers(b, a.path);
}

/** Escapes regex metacharacters, and `/` (the pattern delimiter). */
export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** A route index outside the routes given: a bug in the caller. */
export class RoutePatternError extends PortolanError {
  readonly code = 'LOADMASTER_ROUTE_OUT_OF_RANGE';
}
