import { compareHostnameSpecificity } from './hostnames.ts';
import type { Attachment } from './attach.ts';
import type { HttpRouteInput, HttpRouteMatch, HttpRouteRule } from './gateway-types.ts';

/** One match of one rule of one route, served on one hostname of one listener: a line of the listener's table. */
export interface RouteEntry {
  readonly hostname: string;
  readonly match: HttpRouteMatch;
  readonly rule: HttpRouteRule;
  readonly route: HttpRouteInput;
  readonly ruleIndex: number;
  readonly matchIndex: number;
}

/** A rule without matches matches every request: a PathPrefix "/" match, as the CRD's default says. */
const MATCH_ALL: HttpRouteMatch = {
  path: { type: 'PathPrefix', value: '/' },
  headers: [],
  queryParams: [],
  method: '',
};

/** The entries a route contributes through one attachment (every hostname × rule × match). */
export function routeEntries(route: HttpRouteInput, attachment: Attachment): RouteEntry[] {
  const out: RouteEntry[] = [];
  for (const hostname of attachment.hostnames)
    route.rules.forEach((rule, ruleIndex) => {
      const matches = rule.matches.length === 0 ? [MATCH_ALL] : rule.matches;
      matches.forEach((match, matchIndex) => out.push({ hostname, match, rule, route, ruleIndex, matchIndex }));
    });
  return out;
}

/**
 * The specification's precedence among the entries of one listener, first to be tried first:
 * 1. the most specific hostname (exact, then longer wildcards, then any host);
 * 2. an Exact path, then a RegularExpression path (whose place the specification leaves to implementations: here
 *    after Exact, before any prefix, longer expressions first), then PathPrefix with the most characters;
 * 3. a method match; 4. the most header matches; 5. the most query parameter matches;
 * then, across routes, the oldest by creation timestamp and then `namespace/name` in alphabetical order; within a
 * route, the first rule in list order, and the first match in it.
 */
export function compareEntries(a: RouteEntry, b: RouteEntry): number {
  return (
    compareHostnameSpecificity(a.hostname, b.hostname) ||
    pathRank(a.match) - pathRank(b.match) ||
    b.match.path.value.length - a.match.path.value.length ||
    Number(b.match.method !== '') - Number(a.match.method !== '') ||
    b.match.headers.length - a.match.headers.length ||
    b.match.queryParams.length - a.match.queryParams.length ||
    compareText(a.route.creationTimestamp, b.route.creationTimestamp) ||
    compareText(`${a.route.namespace}/${a.route.name}`, `${b.route.namespace}/${b.route.name}`) ||
    a.ruleIndex - b.ruleIndex ||
    a.matchIndex - b.matchIndex
  );
}

function pathRank(m: HttpRouteMatch): number {
  return m.path.type === 'Exact' ? 0 : m.path.type === 'RegularExpression' ? 1 : 2;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
