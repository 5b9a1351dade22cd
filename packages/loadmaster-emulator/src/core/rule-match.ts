import type { LmRealServer, LmRule } from './lm-state.ts';
import type { LmStore } from './lm-store.ts';

/**
 * How the emulated appliance selects a real server or SubVS for an HTTP request by content rules. The emulator
 * does not carry traffic; this lets tests check that the rules a driver wrote route requests as intended.
 * Semantics: the VS's pre-processing rules (`addprerule`) run first, in order, and only set flags; then entries
 * are tried in their order in the VS; an entry with rules is chosen when ANY of its rules matches (flags from
 * `setonmatch` are visible to later rules); entries without rules take what nothing matched. A rule with
 * `onlyonflag`/`onlyonnoflag` is tried only when that flag is set / not set (flags 1–9, per request).
 */

/** An HTTP request as content rules see it. */
export interface LmHttpRequest {
  readonly host: string;
  readonly path: string;
  readonly query?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** The request method, upper case (`header=method` rules); GET when absent. */
  readonly method?: string;
}

/** The entry a request lands on: a real server, or a SubVS (by its own VS index). */
export type LmRouteResult =
  | { readonly kind: 'rs'; readonly rsIndex: number; readonly addr: string; readonly port: number }
  | { readonly kind: 'subvs'; readonly vsIndex: number; readonly rsIndex: number }
  | { readonly kind: 'none' };

/** Compiles a regex rule (`/…/` delimiters optional); null when the pattern is not a valid regular expression. */
export function compileRulePattern(rule: Pick<LmRule, 'pattern' | 'noCase'>): RegExp | null {
  const delimited = /^\/(.*)\/([a-z]*)$/s.exec(rule.pattern);
  const source = delimited?.[1] ?? rule.pattern;
  const flags = new Set((delimited?.[2] ?? '').split('').filter((f) => f === 'i' || f === 's' || f === 'm'));
  if (rule.noCase) flags.add('i');
  try {
    return new RegExp(source, [...flags].join(''));
  } catch {
    return null;
  }
}

/** True when the rule matches the request (before flag conditions). */
export function isRuleMatch(rule: LmRule, request: LmHttpRequest): boolean {
  const subject = subjectOf(rule, request);
  let matched: boolean;
  if (rule.matchType === 'regex') {
    matched = compileRulePattern(rule)?.test(subject) ?? false;
  } else {
    const s = rule.noCase ? subject.toLowerCase() : subject;
    const p = rule.noCase ? rule.pattern.toLowerCase() : rule.pattern;
    matched = rule.matchType === 'prefix' ? s.startsWith(p) : s.endsWith(p);
  }
  return matched !== rule.negate;
}

/** Selects the entry of VS `vsIndex` a request goes to, following SubVS links only one level (as the appliance does). */
export function routeRequest(store: LmStore, vsIndex: number, request: LmHttpRequest): LmRouteResult {
  return routeWithFlags(store, vsIndex, request).result;
}

/** Like routeRequest, also returning the flags the request set (header rules may depend on them). */
export function routeWithFlags(
  store: LmStore,
  vsIndex: number,
  request: LmHttpRequest,
): { result: LmRouteResult; flags: ReadonlySet<number> } {
  const vs = store.vsByIndex(vsIndex);
  const flags = new Set<number>();
  if (vs === undefined) return { result: { kind: 'none' }, flags };
  for (const name of vs.rules.pre) {
    const rule = store.rule(name);
    if (rule !== undefined && rule.type === 0) tryRule(rule, request, flags);
  }
  const enabled = vs.realServers.filter((rs) => rs.enable);
  for (const entry of enabled) {
    if (entry.rules.length > 0 && entryMatches(store, entry, request, flags)) return { result: resultOf(entry), flags };
  }
  const fallback = enabled.find((rs) => rs.rules.length === 0);
  return { result: fallback === undefined ? { kind: 'none' } : resultOf(fallback), flags };
}

/** True when a rule's flag conditions allow it to be tried. */
export function isFlagAllowed(rule: LmRule, flags: ReadonlySet<number>): boolean {
  if (rule.onlyOnFlag !== 0 && !flags.has(rule.onlyOnFlag)) return false;
  return rule.onlyOnNoFlag === 0 || !flags.has(rule.onlyOnNoFlag);
}

/** Tries one match rule: true when it matched (and then sets its flag). */
function tryRule(rule: LmRule, request: LmHttpRequest, flags: Set<number>): boolean {
  if (!isFlagAllowed(rule, flags) || !isRuleMatch(rule, request)) return false;
  if (rule.setOnMatch !== 0) flags.add(rule.setOnMatch);
  return true;
}

function entryMatches(store: LmStore, entry: LmRealServer, request: LmHttpRequest, flags: Set<number>): boolean {
  let any = false;
  for (const name of entry.rules) {
    const rule = store.rule(name);
    if (rule === undefined || rule.type !== 0) continue;
    if (tryRule(rule, request, flags) && !rule.mustFail) any = true;
  }
  return any;
}

function resultOf(entry: LmRealServer): LmRouteResult {
  return entry.subVs !== 0
    ? { kind: 'subvs', vsIndex: entry.subVs, rsIndex: entry.rsIndex }
    : { kind: 'rs', rsIndex: entry.rsIndex, addr: entry.addr, port: entry.port };
}

function subjectOf(rule: LmRule, request: LmHttpRequest): string {
  const header = rule.header.toLowerCase();
  if (header === '') {
    const query = rule.incQuery && request.query !== undefined && request.query !== '' ? `?${request.query}` : '';
    return `${rule.incHost ? request.host : ''}${request.path}${query}`;
  }
  if (header === 'host') return request.host;
  if (header === 'method') return request.method ?? 'GET';
  const headers = request.headers ?? {};
  const key = Object.keys(headers).find((k) => k.toLowerCase() === header);
  return key === undefined ? '' : (headers[key] ?? '');
}
