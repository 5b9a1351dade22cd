import type { ObjectRef, Route, VirtualService } from '@portolan/desired-state';
import { matchRequest, type RequestAttributes } from '@portolan/routing';

/** The method and headers of an explained request (its query comes with the path). */
export type ExplainedRequest = Omit<RequestAttributes, 'query'>;

/** Which route of a virtual service serves a request, as the audit reports it. */
export interface RequestMatch {
  readonly vs: string;
  /** The route that matched; null when the default pool serves it (or nothing, or a redirect). */
  readonly route: Route | null;
  /** The pool that serves the request; null for a 404 or a redirect. */
  readonly pool: string | null;
  readonly outcome: 'pool' | 'redirect' | 'not-found';
  /** For a Gateway API route: the Gateway and its listener the route attached through. */
  readonly listener: { readonly gateway: ObjectRef; readonly name: string } | null;
}

/**
 * The planner's reference request semantics (`matchRequest`), applied to one virtual service. `path` may carry a
 * query string; with `request` (method and headers) the routes' conditions are judged too, else only host and path.
 */
export function routeRequest(vs: VirtualService, host: string, path: string, request?: ExplainedRequest): RequestMatch {
  const q = path.indexOf('?');
  const bare = q < 0 ? path : path.slice(0, q);
  const attributes = request === undefined ? undefined : { ...request, query: q < 0 ? '' : path.slice(q + 1) };
  const r = matchRequest(vs, host, bare, attributes);
  if (r.kind === 'pool')
    return { vs: vs.name, route: r.route, pool: r.pool, outcome: 'pool', listener: listenerOf(vs, r.route) };
  const route = r.kind === 'redirect' ? (vs.routes.find((x) => x.redirectToHttpsPort === r.port) ?? null) : null;
  return { vs: vs.name, route, pool: null, outcome: r.kind, listener: listenerOf(vs, route) };
}

function listenerOf(vs: VirtualService, route: Route | null): RequestMatch['listener'] {
  const gateway = vs.owners.find((o) => o.kind === 'Gateway');
  return route?.via === undefined || gateway === undefined ? null : { gateway, name: route.via.listener };
}

/** Splits `host/path` (path defaults to `/`; `*` means any host); null when the text does not look like one. */
export function parseHostPath(text: string): { host: string; path: string } | null {
  const slash = text.indexOf('/');
  const host = slash < 0 ? text : text.slice(0, slash);
  const path = slash < 0 ? '/' : text.slice(slash);
  if (host === '' || !(host.includes('.') || host === '*' || host === 'localhost') || /\s/.test(host)) return null;
  return { host: host === '*' ? '' : host, path };
}
