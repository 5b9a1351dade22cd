import { findResourceType, findVirtualResourceType, type ResourceType } from './resource-types.ts';

/** What a request path addresses. */
export type ApiRoute =
  | { readonly kind: 'discovery-api' }
  | { readonly kind: 'discovery-apis' }
  | { readonly kind: 'discovery-group'; readonly group: string }
  | { readonly kind: 'discovery-resources'; readonly group: string; readonly version: string }
  | { readonly kind: 'version' }
  | { readonly kind: 'health' }
  | { readonly kind: 'openapi-v3-index' }
  | { readonly kind: 'openapi-v3'; readonly path: string }
  | { readonly kind: 'admin'; readonly action: string }
  | {
      readonly kind: 'resource';
      readonly type: ResourceType;
      readonly namespace: string;
      readonly name: string;
      readonly subresource: string;
    }
  /** The collection of a create-only resource (TokenReview): it has no namespaced form and no object paths. */
  | { readonly kind: 'virtual'; readonly type: ResourceType }
  | { readonly kind: 'not-found' };

const notFound: ApiRoute = { kind: 'not-found' };

function resourceRoute(group: string, version: string, rest: readonly string[]): ApiRoute {
  if (rest.length === 0) return { kind: 'discovery-resources', group, version };
  const virtual = findVirtualResourceType(group, version, rest[0] ?? '');
  if (virtual !== undefined) return rest.length === 1 ? { kind: 'virtual', type: virtual } : notFound;
  const namespacedType =
    rest[0] === 'namespaces' && rest.length >= 3 ? findResourceType(group, version, rest[2] ?? '') : undefined;
  if (namespacedType !== undefined && namespacedType.namespaced) {
    if (rest.length > 5) return notFound;
    return {
      kind: 'resource',
      type: namespacedType,
      namespace: rest[1] ?? '',
      name: rest[3] ?? '',
      subresource: rest[4] ?? '',
    };
  }
  const type = findResourceType(group, version, rest[0] ?? '');
  if (type === undefined || rest.length > 3) return notFound;
  if (type.namespaced && rest.length > 1) return notFound;
  return { kind: 'resource', type, namespace: '', name: rest[1] ?? '', subresource: rest[2] ?? '' };
}

/** Parses a request path into the API route it addresses (unknown paths are `not-found`). */
export function parseApiRoute(pathname: string): ApiRoute {
  const seg = pathname
    .split('/')
    .filter((s) => s !== '')
    .map(decodeURIComponent);
  const [first, second, third] = seg;
  if (first === 'version' && seg.length === 1) return { kind: 'version' };
  if ((first === 'healthz' || first === 'livez' || first === 'readyz') && seg.length === 1) return { kind: 'health' };
  if (first === 'openapi' && second === 'v3')
    return seg.length === 2 ? { kind: 'openapi-v3-index' } : { kind: 'openapi-v3', path: seg.slice(2).join('/') };
  if (first === '_sim' && seg.length === 2) return { kind: 'admin', action: second ?? '' };
  if (first === 'api') {
    if (seg.length === 1) return { kind: 'discovery-api' };
    return second === 'v1' ? resourceRoute('', 'v1', seg.slice(2)) : notFound;
  }
  if (first === 'apis') {
    if (seg.length === 1) return { kind: 'discovery-apis' };
    if (seg.length === 2) return { kind: 'discovery-group', group: second ?? '' };
    return resourceRoute(second ?? '', third ?? '', seg.slice(3));
  }
  return notFound;
}
