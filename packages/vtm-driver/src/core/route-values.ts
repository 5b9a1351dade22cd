import { RenderRefusedError } from '@portolan/appliance-driver';
import type { Route } from '@portolan/desired-state';

/**
 * User values of HTTPRoute routes checked before they are written into TrafficScript. Every value is written as
 * a string literal by `tsString`, so no value can end the literal or evaluate anything; what a literal cannot make
 * safe is refused with VtmRouteRefusedError naming the route: names outside the HTTP token alphabet, control
 * characters in values that become header fields on the wire (a newline would start another header), paths and
 * hostnames that are not one, and regex constructs that vTM's Perl-compatible engine reads differently from the
 * POSIX extended expressions HTTPRoute asks for, or that could escape the `^(?:…)$` that anchors them.
 */

/** The route a value belongs to, for the refusal's message. */
export type RouteRef = Pick<Route, 'source' | 'host' | 'path'>;

/** A route the vTM driver will not write: the applier leaves its object out of this appliance's plan. */
export class VtmRouteRefusedError extends RenderRefusedError {
  readonly code = 'VTM_ROUTE_REFUSED';

  constructor(route: RouteRef, reason: string) {
    const { cluster, kind, namespace, name } = route.source;
    super(
      route.source,
      `route ${JSON.stringify(route.host)} ${JSON.stringify(route.path)}: ${reason}`,
      `route ${JSON.stringify(route.host)} ${JSON.stringify(route.path)} of ${kind} ${cluster}/${namespace}/${name}: ${reason}`,
    );
  }
}

const CONTROL = /[\x00-\x1f\x7f]/;

/** Header and query parameter names: RFC 9110 token characters. */
export function requireName(route: RouteRef, what: string, name: string): string {
  if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name))
    throw new VtmRouteRefusedError(route, `${what} ${JSON.stringify(name)} is not a supported name`);
  return name;
}

/** A value written into a header field (header edits): no control characters. */
export function requireFieldValue(route: RouteRef, what: string, value: string): string {
  if (CONTROL.test(value)) throw new VtmRouteRefusedError(route, `${what} contains a control character`);
  return value;
}

/** Paths written into rewrites and redirects: absolute, no whitespace or control characters. */
export function requirePath(route: RouteRef, what: string, path: string): string {
  if (!path.startsWith('/') || /[\s\x00-\x1f\x7f]/.test(path))
    throw new VtmRouteRefusedError(route, `${what} ${JSON.stringify(path)} is not an absolute path`);
  return path;
}

/** A DNS name (redirect and rewrite hostnames). */
export function requireHostname(route: RouteRef, what: string, host: string): string {
  if (!/^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(host))
    throw new VtmRouteRefusedError(route, `${what} ${JSON.stringify(host)} is not a hostname`);
  return host;
}

/** An integer in [min, max], e.g. a status code or a port. */
export function requireInteger(route: RouteRef, what: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new VtmRouteRefusedError(route, `${what} ${value} is not an integer in ${min}..${max}`);
  return value;
}

/** `text` as a regular expression matching itself literally. */
export function regexLiteral(text: string): string {
  return text.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');
}

/** A POSIX extended expression as a pattern that must match the whole subject: `^(?:re)$` (see the module comment). */
export function anchoredRegex(route: RouteRef, what: string, re: string): string {
  const reason = regexProblem(re);
  if (reason !== null) throw new VtmRouteRefusedError(route, `${what} ${JSON.stringify(re)}: ${reason}`);
  return `^(?:${re})$`;
}

/**
 * Why `re` cannot be wrapped and handed to a Perl-compatible engine as the POSIX expression it is, or null:
 * parentheses must balance outside bracket expressions, and Perl-only syntax (`(?…)`, `(*VERB)`, `\d`-style
 * escapes, possessive quantifiers, collating elements) is refused. The same reading as the HAProxy driver's.
 */
export function regexProblem(re: string): string | null {
  if (CONTROL.test(re)) return 'contains a control character';
  let depth = 0;
  let afterQuantifier = false;
  for (let i = 0; i < re.length; i++) {
    const c = re[i]!;
    if (c === '\\') {
      const next = re[i + 1];
      if (next === undefined) return 'ends with a backslash';
      if (/[A-Za-z0-9]/.test(next)) return `\\${next} is not a POSIX escape`;
      i++;
      afterQuantifier = false;
      continue;
    }
    if (c === '+' && afterQuantifier) return 'possessive quantifiers are not POSIX';
    afterQuantifier = c === '*' || c === '+' || c === '?' || c === '}';
    if (c === '[') {
      const end = bracketEnd(re, i);
      if (typeof end === 'string') return end;
      i = end;
    } else if (c === '(') {
      if (re[i + 1] === '?' || re[i + 1] === '*') return `(${re[i + 1]} is not POSIX`;
      depth++;
    } else if (c === ')') {
      if (depth === 0) return 'unbalanced )';
      depth--;
    }
  }
  return depth === 0 ? null : 'unbalanced (';
}

/** Index of the `]` closing the bracket expression opened at `start`, or why it cannot be read safely. */
function bracketEnd(re: string, start: number): number | string {
  let i = start + 1;
  if (re[i] === '^') i++;
  // A `]` first in the list is a member, in POSIX and in Perl-compatible engines alike.
  if (re[i] === ']') i++;
  for (; i < re.length; i++) {
    const c = re[i]!;
    if (c === ']') return i;
    if (c === '\\') {
      const next = re[i + 1];
      if (next === undefined || /[A-Za-z0-9]/.test(next)) return 'backslash escapes in brackets are not POSIX';
      i++;
    } else if (c === '[' && re[i + 1] === ':') {
      const close = re.indexOf(':]', i + 2);
      if (close < 0) return 'unclosed [:class:]';
      i = close + 1;
    } else if (c === '[' && (re[i + 1] === '.' || re[i + 1] === '=')) {
      return 'collating elements are not supported';
    }
  }
  return 'unclosed [';
}
