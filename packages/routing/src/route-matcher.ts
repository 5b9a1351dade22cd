import type { Route, VirtualService } from '@portolan/desired-state';
import { hostMatches, wildcardsOf } from './host-name.ts';
import { pathMatches } from './path-match.ts';
import { conditionsHold, type RequestAttributes } from './request-conditions.ts';

/** What a virtual service does with one request. */
export type RequestOutcome =
  | { readonly kind: 'pool'; readonly pool: string; readonly route: Route | null }
  | { readonly kind: 'redirect'; readonly port: number }
  | { readonly kind: 'not-found' };

/**
 * The reference semantics of a planned virtual service, which drivers must reproduce and tests check plans
 * against: the most specific host that has routes wins (exact, then the wildcards, longest suffix first — one label
 * under it, or any number with `wildcardLabels` 'any' — then any host);
 * within it the longest matching path, Exact before Prefix at equal length (HTTPRoute routes: the first in their
 * planned order, the first whose method, header and query conditions `request` meets); no match → the default pool,
 * else 404.
 * A redirect-only service redirects everything.
 */
export function matchRequest(
  vs: VirtualService,
  requestHost: string,
  requestPath: string,
  request?: RequestAttributes,
): RequestOutcome {
  if (vs.redirectToHttpsPort !== null) return { kind: 'redirect', port: vs.redirectToHttpsPort };
  const host = requestHost.toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
  const labels = vs.wildcardLabels ?? 'one';
  const hostClasses = [host, ...wildcardsOf(host, labels), ''];
  for (const ruleHost of hostClasses) {
    const routes = vs.routes.filter((r) => r.host === ruleHost && hostMatches(r.host, host, labels));
    if (routes.length === 0) continue;
    const best = bestRoute(routes, requestPath, request);
    if (best === null) break;
    if (best.redirectToHttpsPort !== undefined) return { kind: 'redirect', port: best.redirectToHttpsPort };
    return { kind: 'pool', pool: best.pool, route: best };
  }
  return vs.defaultPool === null ? { kind: 'not-found' } : { kind: 'pool', pool: vs.defaultPool, route: null };
}

function bestRoute(routes: readonly Route[], requestPath: string, request?: RequestAttributes): Route | null {
  // HTTPRoute routes come in precedence order: the first whose path and conditions match. Without the request's
  // method, headers and query (host and path alone), the first that asks nothing more, else the first whose path
  // matches.
  if (routes.some((r) => r.order !== undefined)) {
    const matching = routes.filter((r) => pathMatches(r.match, r.path, requestPath));
    if (request !== undefined) return matching.find((r) => conditionsHold(r, request)) ?? null;
    return matching.find((r) => !r.headers && !r.queryParams && !r.method) ?? matching[0] ?? null;
  }
  let best: Route | null = null;
  for (const r of routes) {
    if (!pathMatches(r.match, r.path, requestPath)) continue;
    if (
      best === null ||
      r.path.length > best.path.length ||
      (r.path.length === best.path.length && r.match === 'Exact' && best.match !== 'Exact')
    )
      best = r;
  }
  return best;
}
