import type { HeaderEdits, Route } from '@portolan/desired-state';

/**
 * Which hosts of a listener are routed by ordered rules in the frontend instead of by the routing maps.
 *
 * The maps decide by the most specific path (Exact, then the longest element-wise prefix), which is the order of
 * Ingress routes and of HTTPRoute routes that match on host and path alone. A host is routed by rules when one of
 * its routes needs more than a map lookup can say (regex path, header, query or method matches, filters, a fixed
 * status), or when its routes' `order` would pick another route than the maps would (the first route in order must
 * win). Hosts, not routes, switch: a host's routes are then all evaluated in order, so precedence within the host
 * never depends on which of them happen to be maps.
 */
export function ruleHosts(routes: readonly Route[]): ReadonlySet<string> {
  const hosts = new Set<string>();
  const ordered = new Map<string, Route[]>();
  for (const route of routes) {
    if (needsRule(route)) hosts.add(route.host);
    if (route.order === undefined) continue;
    const list = ordered.get(route.host) ?? [];
    list.push(route);
    ordered.set(route.host, list);
  }
  for (const [host, list] of ordered) if (!hosts.has(host) && !mapsKeepOrder(list)) hosts.add(host);
  return hosts;
}

/** True when a route uses a feature of HTTPRoute that the routing maps cannot express. */
export function needsRule(route: Route): boolean {
  const f = route.filters;
  const edits = (e: HeaderEdits | undefined): boolean =>
    e !== undefined && e.set.length + e.add.length + e.remove.length > 0;
  return (
    route.match === 'Regex' ||
    (route.headers?.length ?? 0) > 0 ||
    (route.queryParams?.length ?? 0) > 0 ||
    route.method !== undefined ||
    route.fixedStatus !== undefined ||
    (f !== undefined &&
      (edits(f.requestHeaders) || edits(f.responseHeaders) || f.redirect !== undefined || f.rewrite !== undefined))
  );
}

/**
 * Whether the maps pick, for every request, the first route in `routes` (one host's, in order) that matches it.
 * The maps prefer a later route over an earlier one that also matches exactly when the later one lies strictly
 * under an earlier Prefix (a longer prefix, or an Exact path below it); an equal key keeps the earlier route.
 */
function mapsKeepOrder(routes: readonly Route[]): boolean {
  const prefixes = new Set<string>();
  for (const route of routes) {
    const path = route.match === 'Exact' ? route.path : trimTrailingSlashes(route.path);
    for (const ancestor of strictAncestors(path)) if (prefixes.has(ancestor)) return false;
    if (route.match !== 'Exact') prefixes.add(path);
  }
  return true;
}

/** The trimmed prefixes `t` with `path` starting with `t/` (`''` stands for `/`). */
function strictAncestors(path: string): string[] {
  const out: string[] = [];
  for (let i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1)) out.push(path.slice(0, i));
  return out;
}

function trimTrailingSlashes(path: string): string {
  return path.replace(/\/+$/, '');
}
