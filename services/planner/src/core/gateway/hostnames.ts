// Hostname matching as the Gateway API specifies it. Unlike Ingress, a wildcard `*.example.com` matches any number of
// labels before the suffix (`a.example.com`, `a.b.example.com`), never the suffix itself. Hostnames reaching here
// are canonical (lower case, IDNA, no trailing dot): the CRD schema and the planner's host canonicalisation see to it.

/** Whether `host` (exact) is served by a listener hostname (`''` = any, exact, or wildcard). */
export function listenerServes(listenerHostname: string, host: string): boolean {
  if (listenerHostname === '') return true;
  if (!listenerHostname.startsWith('*.')) return listenerHostname === host;
  return host.endsWith(listenerHostname.slice(1));
}

/** True when wildcard `outer` (`*.x`) covers every host wildcard `inner` (`*.y`) does: y is x or under x. */
function wildcardCovers(outer: string, inner: string): boolean {
  const o = outer.slice(1);
  const i = inner.slice(1);
  return i === o || i.endsWith(o);
}

/**
 * The hostnames a route serves through one listener: the intersection of the listener's hostname with the route's
 * `hostnames`, the more specific of each matching pair. Empty when they share no host (the route then does not
 * attach to this listener: `NoMatchingListenerHostname` when no listener matches). `['']` means any host.
 */
export function intersectHostnames(listenerHostname: string, routeHostnames: readonly string[]): string[] {
  if (routeHostnames.length === 0) return [listenerHostname];
  if (listenerHostname === '') return [...new Set(routeHostnames)].sort();
  const out = new Set<string>();
  const listenerWildcard = listenerHostname.startsWith('*.');
  for (const h of routeHostnames) {
    const routeWildcard = h.startsWith('*.');
    if (!routeWildcard) {
      if (listenerServes(listenerHostname, h)) out.add(h);
    } else if (!listenerWildcard) {
      if (listenerServes(h, listenerHostname)) out.add(listenerHostname);
    } else if (wildcardCovers(listenerHostname, h)) out.add(h);
    else if (wildcardCovers(h, listenerHostname)) out.add(listenerHostname);
  }
  return [...out].sort();
}

/**
 * Orders hostnames most specific first, as the specification's precedence asks: exact names before wildcards,
 * longer wildcard suffixes before shorter ones, any host last; ties by the name itself, so the order is total.
 */
export function compareHostnameSpecificity(a: string, b: string): number {
  return rank(a) - rank(b) || b.length - a.length || (a < b ? -1 : a > b ? 1 : 0);
}

function rank(h: string): number {
  if (h === '') return 2;
  return h.startsWith('*.') ? 1 : 0;
}
