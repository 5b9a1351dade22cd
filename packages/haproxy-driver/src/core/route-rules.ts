import type { Route } from '@portolan/desired-state';
import { routeConditions } from './route-conditions.ts';
import { type RuleListener, routeActions } from './route-actions.ts';
import { configWord, requireRouteHost } from './route-values.ts';

export type { RuleListener } from './route-actions.ts';

/** The frontend lines that route the rule hosts of a listener (see `rule-hosts.ts`), by where they go. */
export interface RouteRuleLines {
  /** ACL declarations (their place in the section does not matter). */
  readonly acls: readonly string[];
  /** `http-request` lines: selection in route order, then the selected route's actions. */
  readonly request: readonly string[];
  /** `http-after-response` lines: the selected route's response header edits. */
  readonly response: readonly string[];
}

/**
 * Ordered rules for the routes of `hosts` (in `routes` order, which is precedence order).
 *
 * Selection runs after the map lookups, which also resolve the request's host: `txn.host_known` holds the most
 * specific host of the listener that has routes (exact, then `*.suffix`, unset for any host), and the rule hosts
 * are in the hosts map for that purpose. A rule fires only for its own resolved host and only when no map routed
 * the request (`!routed`: a map hit leaves `txn.host_known` unset, which alone would read as "any host"), so a
 * wildcard or any-host rule never takes a request from a more specific host, map-routed or not. Within the host the first route whose
 * conditions all hold sets `txn.gw` to its number and later routes no longer look (`!gw_sel`); the actions then
 * run under `gw_r<k>`, after every condition was read from the unmodified request.
 */
export function routeRuleLines(
  routes: readonly Route[],
  hosts: ReadonlySet<string>,
  listener: RuleListener,
  backendOf: (pool: string) => string | null,
): RouteRuleLines {
  const acls = ['acl gw_sel var(txn.gw) -m found'];
  const select: string[] = [];
  const actions: string[] = [];
  const response: string[] = [];
  const hostAcls = new Map<string, string>();
  const hostCondition = (route: Route): string => {
    if (route.host === '') return '!host_known';
    let name = hostAcls.get(route.host);
    if (name === undefined) {
      name = `gw_h${hostAcls.size}`;
      hostAcls.set(route.host, name);
      acls.push(`acl ${name} var(txn.host_known) -m str -- ${configWord(route, 'host', requireRouteHost(route))}`);
    }
    return name;
  };
  let k = 0;
  for (const route of routes) {
    if (!hosts.has(route.host)) continue;
    const host = hostCondition(route);
    const conditions = routeConditions(route, k);
    const done = routeActions(route, k, listener, backendOf);
    acls.push(...conditions.acls, `acl gw_r${k} var(txn.gw) -m int eq ${k}`);
    select.push(
      `http-request set-var(txn.gw) int(${k}) if ${['!gw_sel', '!routed', host, ...conditions.names].join(' ')}`,
    );
    actions.push(...done.request);
    response.push(...done.response);
    k++;
  }
  return { acls, request: [...select, ...actions], response };
}
