// @portolan/routing — how a request meets a desired state: canonical host names and wildcards, path matching
// (Exact, Prefix, ImplementationSpecific), and which route answers a given host and path.
export { canonicalizeHost, hostMatches, wildcardsOf, type HostResult } from './host-name.ts';
export { normalizePath, pathMatches, type PathResult } from './path-match.ts';
export { matchRequest, type RequestOutcome } from './route-matcher.ts';
export {
  isHostname,
  REDIRECT_CODES,
  redirectDestination,
  regexProblem,
  type RedirectDestination,
  type RedirectListener,
} from './route-values.ts';
export { conditionsHold, firstMatchPerName, type RequestAttributes } from './request-conditions.ts';
