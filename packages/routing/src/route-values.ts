import type { RouteFilters } from '@portolan/desired-state';

/**
 * What every driver checks of an HTTPRoute route's user values before it writes them in its own syntax, and the
 * redirect arithmetic they share. Each function answers why a value cannot be carried (null: it can), and each
 * driver turns that into its own refusal naming the route.
 */

const CONTROL = /[\x00-\x1f\x7f]/;

/**
 * Why a POSIX extended regular expression cannot be wrapped as `^(?:re)$` and handed to a Perl-compatible engine
 * (HAProxy's PCRE2, vTM's) as the expression it is, or null when it can. Wrapping is only sound when `re` cannot
 * close the group early, so its parentheses must balance outside bracket expressions; Perl-only syntax that would
 * change the meaning or escape the wrapper (`(?…)`, `(*VERB)`, `\Q`, `\d`-style escapes, possessive quantifiers,
 * collating elements) is refused too.
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
      // POSIX reads a backslash in brackets literally, PCRE as an escape: only `\<punctuation>` means the same
      // character to both readers closely enough (the escaped character is in the set either way).
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

/** Whether `host` is a DNS name (redirect and rewrite hostnames): letters, digits, `-` and `.`. */
export function isHostname(host: string): boolean {
  return /^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(host);
}

/** The status codes a RequestRedirect may ask for. */
export const REDIRECT_CODES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** The listener a redirect falls back to for the scheme and port it leaves unset. */
export interface RedirectListener {
  readonly protocol: 'http' | 'https';
  readonly port: number;
}

/** Where a redirect sends the client, apart from the path: or why no driver can write it. */
export type RedirectDestination =
  | {
      readonly ok: true;
      readonly scheme: 'http' | 'https';
      /** `:<port>`, or '' when the port is the scheme's default. */
      readonly portPart: string;
      /** The hostname to redirect to; undefined keeps the request's. */
      readonly hostname: string | undefined;
    }
  | { readonly ok: false; readonly reason: string };

/**
 * A redirect's scheme, port and host as the specification says: unset ones keep the request's (the listener's
 * scheme and port; a scheme given alone implies its well-known port), and a port that is the scheme's default is
 * left out of Location.
 */
export function redirectDestination(
  redirect: NonNullable<RouteFilters['redirect']>,
  listener: RedirectListener,
): RedirectDestination {
  if (redirect.scheme !== undefined && redirect.scheme !== 'http' && redirect.scheme !== 'https')
    return { ok: false, reason: `redirect scheme ${JSON.stringify(redirect.scheme)} is not supported` };
  if (!REDIRECT_CODES.has(redirect.statusCode))
    return { ok: false, reason: `redirect status ${redirect.statusCode} is not supported` };
  const scheme = redirect.scheme ?? listener.protocol;
  const port = redirect.port ?? (redirect.scheme !== undefined ? wellKnownPort(scheme) : listener.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    return { ok: false, reason: `redirect port ${port} is not an integer in 1..65535` };
  if (redirect.hostname !== undefined && !isHostname(redirect.hostname))
    return { ok: false, reason: `redirect hostname ${JSON.stringify(redirect.hostname)} is not a hostname` };
  return { ok: true, scheme, portPart: port === wellKnownPort(scheme) ? '' : `:${port}`, hostname: redirect.hostname };
}

function wellKnownPort(scheme: 'http' | 'https'): number {
  return scheme === 'https' ? 443 : 80;
}
