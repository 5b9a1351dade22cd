import type { Route, ValueMatch } from '@portolan/desired-state';
import { regexProblem } from '@portolan/routing';
import { LoadMasterRouteRefusedError } from './route-refused.ts';
import { escapeRegex } from './route-patterns.ts';

/**
 * User values of HTTPRoute routes made safe as LoadMaster rule parameters. Values travel in the v2 JSON body, so
 * quotes, `&` and `/` need no URL escaping; what a content rule would read differently is escaped (regex
 * metacharacters and the `/` delimiter of an Exact value) or refused with an error naming the route: control
 * characters (a newline would split a header), names outside the RFC 9110 token alphabet, the header names the
 * appliance reads specially (`method`, `src-ip`, `body`), regex constructs PCRE reads differently from a POSIX
 * extended expression, and patterns past the appliance's 250 characters.
 */

const CONTROL = /[\x00-\x1f\x7f]/;
const TOKEN = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;
/** Header field values the appliance gives a meaning of its own instead of reading a request header. */
const SPECIAL_HEADERS = new Set(['method', 'src-ip', 'body']);
/** The WUI's and the appliance's limit on a rule pattern. */
export const MAX_PATTERN = 250;

/** Methods an HTTPRoute may match on. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH']);

/** A header name a rule may read or write. */
export function headerName(route: Route, name: string): string {
  if (!TOKEN.test(name))
    throw new LoadMasterRouteRefusedError(route, `header name ${JSON.stringify(name)} is not a token`);
  if (SPECIAL_HEADERS.has(name.toLowerCase()))
    throw new LoadMasterRouteRefusedError(route, `header ${JSON.stringify(name)} is read specially by the LoadMaster`);
  return name;
}

/**
 * A header name a DeleteHeaderRule removes: whether the appliance reads its pattern as a literal or a regex is
 * undocumented, so names with characters that differ between the two (`$ * + . ^ |`) are refused.
 */
export function deletableName(route: Route, name: string): string {
  if (/[$*+.^|]/.test(headerName(route, name)))
    throw new LoadMasterRouteRefusedError(route, `header name ${JSON.stringify(name)} cannot be removed exactly`);
  return name;
}

/** A header value written by a header edit rule; refuses control characters. */
export function headerValue(route: Route, name: string, value: string): string {
  if (CONTROL.test(value))
    throw new LoadMasterRouteRefusedError(
      route,
      `value of header ${JSON.stringify(name)} contains a control character`,
    );
  return value;
}

/** The `/…/` pattern matching a whole header value: Exact escaped, RegularExpression wrapped and anchored. */
export function valuePattern(route: Route, match: ValueMatch): string {
  const what = `header ${JSON.stringify(match.name)}`;
  if (CONTROL.test(match.value))
    throw new LoadMasterRouteRefusedError(route, `${what} value contains a control character`);
  let body: string;
  if (match.type === 'Exact') body = escapeRegex(match.value);
  else if (match.type === 'Regex') body = `(?:${posixAsPcre(route, what, match.value)})`;
  else
    throw new LoadMasterRouteRefusedError(route, `${what}: match type ${JSON.stringify(match.type)} is not supported`);
  return bounded(route, what, `/^${body}$/`);
}

/** The pattern matching exactly the route's method. */
export function methodPattern(route: Route, method: string): string {
  if (!METHODS.has(method))
    throw new LoadMasterRouteRefusedError(route, `method ${JSON.stringify(method)} is not supported`);
  return `/^${method}$/`;
}

/** Refuses a pattern longer than the appliance takes. */
export function bounded(route: Route, what: string, pattern: string): string {
  if (pattern.length > MAX_PATTERN)
    throw new LoadMasterRouteRefusedError(route, `${what}: the rule pattern would exceed ${MAX_PATTERN} characters`);
  return pattern;
}

/**
 * A POSIX extended regular expression as PCRE source that cannot escape its `^(?:…)$` wrapper (the shared check of
 * `@portolan/routing`), with every bare `/` escaped so it cannot end the `/…/` delimiters.
 */
function posixAsPcre(route: Route, what: string, re: string): string {
  const problem = regexProblem(re);
  if (problem !== null) throw new LoadMasterRouteRefusedError(route, `${what} regex ${JSON.stringify(re)}: ${problem}`);
  return re.replace(/\\.|\//g, (m) => (m === '/' ? '\\/' : m));
}
