import type { Route } from '@portolan/desired-state';
import type { MapEntry } from './haproxy-bundle.ts';

/**
 * Ingress host/path routing as HAProxy map entries.
 *
 * HTTP keys are `<host><path>` where host is an exact host, `*.<suffix>` for a single-label wildcard, or empty
 * for "any host" (then the key starts with `/`). The frontend looks them up in this order, which gives the
 * Ingress precedence (exact host, then wildcard, then any host; within a host, Exact path or the longest
 * element-wise prefix):
 *   1. `exact`  (map, exact match)  — Exact paths, and the exact part of every Prefix path (`/foo`);
 *   2. `prefix` (map_beg, longest prefix) — Prefix paths as `/foo/`, so `/foo` matches `/foo/bar` but not `/foobar`;
 *   3. `hosts`  — hosts that have rules: once the most specific host matched, unmatched paths go to the
 *      default backend (or 404) instead of falling through to less specific hosts, as in ingress-nginx.
 * The first route in list order wins when two produce the same key (the planner sorts by precedence).
 * A route with `redirectToHttpsPort` maps to `https-redirect:<port>` instead of a backend (per-route ssl-redirect).
 */
export interface HttpRoutingMaps {
  readonly exact: readonly MapEntry[];
  readonly prefix: readonly MapEntry[];
  readonly hosts: readonly MapEntry[];
}

/** TLS passthrough routing by SNI: exact server names, and wildcard suffixes keyed without the `*.`. */
export interface SniRoutingMaps {
  readonly exact: readonly MapEntry[];
  readonly wildcard: readonly MapEntry[];
}

/** Resolves a pool name to its backend name; null when the pool is unknown (the route is then dropped). */
export type BackendOf = (pool: string) => string | null;

/**
 * Builds the HTTP routing maps of one listener from its routes (already in precedence order). The routes of
 * `ruleHosts` are routed by frontend rules instead (`route-rules.ts`): only their host goes into the hosts map, so
 * the lookup chain still resolves a request to its most specific host.
 */
export function httpRoutingMaps(
  routes: readonly Route[],
  backendOf: BackendOf,
  ruleHosts: ReadonlySet<string> = new Set(),
): HttpRoutingMaps {
  const exact = new EntryCollector();
  const prefix = new EntryCollector();
  const hosts = new EntryCollector();
  for (const route of routes) {
    if (ruleHosts.has(route.host)) {
      if (route.host !== '' && isMapToken(route.host)) hosts.add(route.host, route.host);
      continue;
    }
    const backend =
      route.redirectToHttpsPort === undefined ? backendOf(route.pool) : redirectTarget(route.redirectToHttpsPort);
    if (backend === null || !isMapToken(route.host) || !isMapToken(route.path)) continue;
    if (route.host !== '') hosts.add(route.host, route.host);
    if (route.match === 'Exact' && route.path.startsWith('/')) {
      exact.add(route.host + route.path, backend);
      continue;
    }
    const trimmed = trimTrailingSlashes(route.path);
    if (trimmed !== '') exact.add(route.host + trimmed, backend);
    prefix.add(`${route.host}${trimmed}/`, backend);
  }
  return { exact: exact.sorted(), prefix: prefix.sorted(), hosts: hosts.sorted() };
}

/** Prefix of the map value that makes the frontend redirect to https instead of proxying. */
export const REDIRECT_VALUE_PREFIX = 'https-redirect:';

/**
 * Map value of a per-route ssl-redirect: the prefix, then the URL's port part (`:8443`, or nothing for 443).
 * Never a backend name (those start with `http:` or `tcp:`).
 */
export function redirectTarget(port: number): string {
  return port === 443 ? REDIRECT_VALUE_PREFIX : `${REDIRECT_VALUE_PREFIX}:${port}`;
}

/** Builds the SNI routing maps of one passthrough listener; any-host routes are left to its default backend. */
export function sniRoutingMaps(routes: readonly Route[], backendOf: BackendOf): SniRoutingMaps {
  const exact = new EntryCollector();
  const wildcard = new EntryCollector();
  for (const route of routes) {
    const backend = backendOf(route.pool);
    if (backend === null || route.host === '' || !isMapToken(route.host)) continue;
    if (route.host.startsWith('*.')) wildcard.add(route.host.slice(2), backend);
    else exact.add(route.host, backend);
  }
  return { exact: exact.sorted(), wildcard: wildcard.sorted() };
}

/** Renders map entries as a map file (one `key value` line each). */
export function renderMapFile(entries: readonly MapEntry[]): string {
  return entries.map(([key, value]) => `${key} ${value}\n`).join('');
}

/** Sorts map entries by key (code units), the canonical order used for comparisons. */
export function sortEntries(entries: readonly MapEntry[]): MapEntry[] {
  return [...entries].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/** Map files split keys from values on whitespace and treat `#` lines as comments: such keys cannot be stored. */
function isMapToken(text: string): boolean {
  return !/[\s\x00-\x1f\x7f]/.test(text) && !text.startsWith('#');
}

function trimTrailingSlashes(path: string): string {
  let end = path.length;
  while (end > 0 && path[end - 1] === '/') end--;
  return path.slice(0, end);
}

/**
 * Keeps the first value per key, then sorts by key. Mutable by design: a builder that lives for one render call and
 * is never shared, so the render stays a function of its arguments.
 */
class EntryCollector {
  readonly #values = new Map<string, string>();

  add(key: string, value: string): void {
    if (!this.#values.has(key)) this.#values.set(key, value);
  }

  sorted(): MapEntry[] {
    return sortEntries([...this.#values.entries()]);
  }
}
