import type { Route, ValueMatch } from '@portolan/desired-state';
import type { LmRuleSpec } from './lm-vendor-state.ts';
import { ownerMark } from './owner-mark.ts';
import { canOverlap, routeBody, type WildcardLabels } from './route-patterns.ts';
import { LoadMasterRouteRefusedError } from './route-refused.ts';
import { bounded, headerName, methodPattern, valuePattern } from './route-values.ts';

/**
 * The match rules of one virtual service's routes, with HTTPRoute header and method matches (pure).
 *
 * Every route keeps one URL rule (`inchost=1`, host AND path in one regex) assigned to its SubVS. A route with
 * conditions (headers, method) gets a chain of pre-processing rules, one per condition, each tried only when the
 * previous one set its flag (`onlyonflag`) and setting the next (`setonmatch`); the route's URL rule is tried
 * only when the last flag is set. Routes with identical conditions share one chain.
 *
 * Precedence (routes arrive in precedence order) stays independent of the appliance's rule order: a route's
 * regex excludes, by negative lookahead, every earlier route to another SubVS that can overlap and has no
 * conditions. An earlier route WITH conditions must exclude only the requests it really takes (host, path AND
 * conditions), which a lookahead cannot see; so for each set C of such earlier routes, pre rules `^<host+path
 * of c>` tried only on c's condition flag set one shared "taken" flag, and the later route's URL rule is tried
 * only when that flag is NOT set (`onlyonnoflag`). The earliest route that fully matches therefore always fires,
 * and a later route to another SubVS never does.
 *
 * A virtual service has nine flags. Flags are handed out in route order; the first route that needs more than
 * are left is refused on its own (LoadMasterRouteRefusedError naming its object): the applier reports it, the
 * planner leaves that object out, and the routes before it apply.
 */

/** Match rules of a VS's routes: every rule, the ordered pre rules, and each route's URL rule name. */
export interface RouteRules {
  readonly rules: readonly LmRuleSpec[];
  readonly preRules: readonly string[];
  readonly urlRules: readonly string[];
}

/** The flags a virtual service has. */
export const MAX_FLAGS = 9;

/** Renders the match rules; `targets[i]` names the SubVS route `i` goes to (routes to one SubVS never exclude). */
export function renderRouteRules(
  appliance: string,
  vsName: string,
  routes: readonly Route[],
  targets: readonly string[],
  labels: WildcardLabels,
): RouteRules {
  const book: Book = {
    name: (key) => ownerMark(appliance, 'rl', `${vsName}|${key}`),
    rules: [],
    chains: [],
    exclusions: [],
    chainFlag: new Map(),
    takenFlag: new Map(),
    nextFlag: 1,
    used: new Set(),
  };
  const urlRules = routes.map((route, j) => {
    addChain(book, route);
    const earlier = routes.slice(0, j).filter((r, i) => targets[i] !== targets[j] && canOverlap(r, route, labels));
    const plain = earlier.filter((r) => conditionKey(r) === '');
    const taken = addTaken(
      book,
      route,
      earlier.filter((r) => conditionKey(r) !== ''),
      labels,
    );
    const lookaheads = plain.map((r) => `(?!${routeBody(r, labels)})`).join('');
    let ruleName = book.name(identity(route));
    if (book.used.has(ruleName)) ruleName = book.name(`${identity(route)}|${j}`);
    book.used.add(ruleName);
    const onlyOnFlag = book.chainFlag.get(conditionKey(route)) ?? 0;
    book.rules.push({
      name: ruleName,
      pattern: `/^${lookaheads}${routeBody(route, labels)}/`,
      incHost: true,
      ...(onlyOnFlag === 0 ? {} : { onlyOnFlag }),
      ...(taken === 0 ? {} : { onlyOnNoFlag: taken }),
    });
    return ruleName;
  });
  return { rules: book.rules, preRules: [...book.chains, ...book.exclusions], urlRules };
}

/** The rules and flags handed out so far for one virtual service. */
interface Book {
  readonly name: (key: string) => string;
  readonly rules: LmRuleSpec[];
  readonly chains: string[];
  readonly exclusions: string[];
  /** Condition key -> the flag set when every condition holds. */
  readonly chainFlag: Map<string, number>;
  /** Set of earlier conditioned routes -> the flag set when one of them takes the request. */
  readonly takenFlag: Map<string, number>;
  nextFlag: number;
  readonly used: Set<string>;
}

function allocate(book: Book, route: Route): number {
  if (book.nextFlag > MAX_FLAGS)
    throw new LoadMasterRouteRefusedError(
      route,
      `needs more than the ${MAX_FLAGS} content-rule flags of its virtual service`,
    );
  return book.nextFlag++;
}

/** The chain of condition rules of a route (shared with earlier routes of equal conditions). */
function addChain(book: Book, route: Route): void {
  const conditions = conditionsOf(route);
  const key = conditionKey(route);
  if (conditions.length === 0 || book.chainFlag.has(key)) return;
  let previous = 0;
  conditions.forEach((c, step) => {
    const flag = allocate(book, route);
    const name = book.name(`if|${key}|${step}`);
    book.rules.push({
      name,
      pattern: c.pattern,
      incHost: false,
      header: c.header,
      setOnMatch: flag,
      ...(previous === 0 ? {} : { onlyOnFlag: previous }),
    });
    book.chains.push(name);
    previous = flag;
  });
  book.chainFlag.set(key, previous);
}

/** The flag set when one of the earlier conditioned routes takes the request (0 when there are none). */
function addTaken(book: Book, route: Route, conditioned: readonly Route[], labels: WildcardLabels): number {
  if (conditioned.length === 0) return 0;
  const set = conditioned.map(identity).join(',');
  const known = book.takenFlag.get(set);
  if (known !== undefined) return known;
  const taken = allocate(book, route);
  book.takenFlag.set(set, taken);
  for (const earlier of conditioned) {
    const name = book.name(`taken|${set}|${identity(earlier)}`);
    // Two earlier routes with equal host, path and conditions give the same rule: one is enough.
    if (book.exclusions.includes(name)) continue;
    book.rules.push({
      name,
      pattern: bounded(route, 'exclusion', `/^${routeBody(earlier, labels)}/`),
      incHost: true,
      onlyOnFlag: book.chainFlag.get(conditionKey(earlier)) ?? 0,
      setOnMatch: taken,
    });
    book.exclusions.push(name);
  }
  return taken;
}

/** A route's match as a rule key: host, path, match kind and conditions (the same name as before conditions). */
function identity(route: Route): string {
  const key = conditionKey(route);
  return `${route.host}|${route.path}|${route.match}${key === '' ? '' : `|${key}`}`;
}

/** A route's conditions as (header, pattern) match rules: headers (first of each name), then the method. */
function conditionsOf(route: Route): { header: string; pattern: string }[] {
  const out = firstByName(route).map((h) => ({ header: headerName(route, h.name), pattern: valuePattern(route, h) }));
  if (route.method !== undefined) out.push({ header: 'method', pattern: methodPattern(route, route.method) });
  return out;
}

/** The header matches that count: the first of each (case-insensitive) name, as the specification says. */
function firstByName(route: Route): ValueMatch[] {
  const seen = new Set<string>();
  return (route.headers ?? []).filter((h) => {
    const key = h.name.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Identifies a condition set: routes with equal keys share one chain (and one flag per condition). */
function conditionKey(route: Route): string {
  const headers = firstByName(route).map((h) => [h.name.toLowerCase(), h.type, h.value]);
  return headers.length === 0 && route.method === undefined ? '' : JSON.stringify([headers, route.method ?? '']);
}
