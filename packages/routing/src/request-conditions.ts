import type { Route, ValueMatch } from '@portolan/desired-state';

/** What a request carries beyond host and path, for the routes that match on it (HTTPRoute). */
export interface RequestAttributes {
  /** The method, e.g. `GET` (any case). */
  readonly method: string;
  /** Header values by name (any case), one value each. */
  readonly headers: Readonly<Record<string, string>>;
  /** The raw query string, without the `?` ('' for none). */
  readonly query: string;
}

/**
 * Whether a request meets a route's method, header and query conditions, as the Gateway API specifies them: the
 * method equal; each header present (name in any case) with its whole value equal or matching the regex; each
 * query parameter's first occurrence, URL-decoded, the same. A regex that cannot be compiled matches nothing.
 */
export function conditionsHold(route: Route, request: RequestAttributes): boolean {
  if (route.method !== undefined && route.method !== request.method.toUpperCase()) return false;
  const headers = new Map(Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), v] as const));
  for (const m of firstMatchPerName(route.headers ?? [], (n) => n.toLowerCase())) {
    const value = headers.get(m.name.toLowerCase());
    if (value === undefined || !valueMatches(m, value)) return false;
  }
  for (const m of firstMatchPerName(route.queryParams ?? [], (n) => n)) {
    const value = firstQueryValue(request.query, m.name);
    if (value === undefined || !valueMatches(m, value)) return false;
  }
  return true;
}

function valueMatches(m: ValueMatch, value: string): boolean {
  if (m.type === 'Exact') return value === m.value;
  try {
    return new RegExp(`^(?:${m.value})$`).test(value);
  } catch {
    return false;
  }
}

/** The URL-decoded value of the first `name=` in a query string (`+` is a space), or undefined. */
function firstQueryValue(query: string, name: string): string | undefined {
  for (const part of query.split('&')) {
    const eq = part.indexOf('=');
    const key = decode(eq < 0 ? part : part.slice(0, eq));
    if (key === name) return eq < 0 ? '' : decode(part.slice(eq + 1));
  }
  return undefined;
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return text;
  }
}

/**
 * The first match for each name (by `key`: header names compare in any case, query names exactly), in list order:
 * the Gateway API ignores later matches of a name a rule already matches on.
 */
export function firstMatchPerName(matches: readonly ValueMatch[], key: (name: string) => string): ValueMatch[] {
  const seen = new Set<string>();
  return matches.filter((m) => {
    const k = key(m.name);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
