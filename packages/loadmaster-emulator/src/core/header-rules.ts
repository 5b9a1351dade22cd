import type { LmRule, LmVirtualService } from './lm-state.ts';
import type { LmStore } from './lm-store.ts';
import type { LmHttpRequest, LmRouteResult } from './rule-match.ts';
import { compileRulePattern, isFlagAllowed, routeWithFlags } from './rule-match.ts';

/**
 * Header rules (types 1–3) applied to one request and its response, as the appliance would on the way through:
 * the VS's request rules, then those of the SubVS the request was routed to; on the way back the SubVS's
 * response rules, then the VS's. Each rule is tried only when its flag conditions hold for the request's flags.
 * Headers are a list of (name, value) lines, so an added header is a new line beside any existing one.
 * - AddHeader (1): appends `header: replacement`;
 * - DeleteHeader (2): removes every line whose name is `pattern` (case-insensitive), or matches `/regex/`;
 * - ReplaceHeader (3): in the value of every `header` line, replaces what `pattern` matches by `replacement`
 *   (`\1`… are the pattern's groups).
 * ModifyURL (4) rules are accepted in request lists but not applied: the emulator carries no request line.
 */

/** One header line. */
export type LmHeaderLine = readonly [name: string, value: string];

/** Where a request went and its headers as the real server (request) and the client (response) see them. */
export interface LmExchange {
  readonly result: LmRouteResult;
  readonly requestHeaders: readonly LmHeaderLine[];
  readonly responseHeaders: readonly LmHeaderLine[];
}

/** Routes a request through VS `vsIndex` and applies the header rules on its path both ways. */
export function exchangeRequest(
  store: LmStore,
  vsIndex: number,
  request: LmHttpRequest,
  responseHeaders: readonly LmHeaderLine[] = [],
): LmExchange {
  const { result, flags } = routeWithFlags(store, vsIndex, request);
  const vs = store.vsByIndex(vsIndex);
  const sub = result.kind === 'subvs' ? store.vsByIndex(result.vsIndex) : undefined;
  const chain = [vs, sub].filter((v): v is LmVirtualService => v !== undefined);
  let req: readonly LmHeaderLine[] = Object.entries(request.headers ?? {});
  for (const v of chain) req = applyHeaderRules(store, v.rules.request, req, flags);
  let res = responseHeaders;
  for (const v of [...chain].reverse()) res = applyHeaderRules(store, v.rules.response, res, flags);
  return { result, requestHeaders: req, responseHeaders: res };
}

/** Applies the named rules, in order, to header lines. */
export function applyHeaderRules(
  store: LmStore,
  names: readonly string[],
  headers: readonly LmHeaderLine[],
  flags: ReadonlySet<number>,
): readonly LmHeaderLine[] {
  let out = headers;
  for (const name of names) {
    const rule = store.rule(name);
    if (rule === undefined || !isFlagAllowed(rule, flags)) continue;
    out = applyOne(rule, out);
  }
  return out;
}

function applyOne(rule: LmRule, headers: readonly LmHeaderLine[]): readonly LmHeaderLine[] {
  switch (rule.type) {
    case 1:
      return [...headers, [rule.header, rule.replacement]];
    case 2:
      return headers.filter(([name]) => !isNameMatch(rule, name));
    case 3: {
      const re = compileRulePattern({ pattern: rule.pattern, noCase: rule.noCase });
      if (re === null) return headers;
      const global = new RegExp(re.source, `${re.flags}g`);
      const replacement = rule.replacement.replace(/\$/g, '$$$$').replace(/\\(\d)/g, '$$$1');
      return headers.map(([n, v]): LmHeaderLine =>
        n.toLowerCase() === rule.header.toLowerCase() ? [n, v.replace(global, replacement)] : [n, v],
      );
    }
    default:
      return headers;
  }
}

function isNameMatch(rule: LmRule, name: string): boolean {
  if (!rule.pattern.startsWith('/')) return rule.pattern.toLowerCase() === name.toLowerCase();
  return compileRulePattern({ pattern: rule.pattern, noCase: true })?.test(name) ?? false;
}
