import type { Route } from '@portolan/desired-state';
import { isHostname, regexProblem } from '@portolan/routing';
import { HaproxyRouteRefusedError } from '../errors.ts';

/**
 * User values of HTTPRoute routes (paths, header values, regexes, names) made safe as haproxy.cfg words.
 *
 * Every value is written as one strong-quoted word (`'…'`): inside single quotes HAProxy interprets nothing (no
 * `$VAR`, no backslash escapes, no `#` comments), and a single quote is written as `'\''` (close, escaped quote,
 * reopen: HAProxy concatenates adjacent quoted parts). What quoting cannot carry is refused with a typed error
 * naming the route: control characters (a newline would end the line and start a new directive), names outside
 * a small token alphabet (they sit inside sample-fetch arguments, where `,` `(` `)` and quotes are syntax), and
 * regex constructs that PCRE2 (what Debian's HAProxy runs) reads differently from POSIX extended expressions.
 */

/** The route a value belongs to, for the refusal's message. */
export type RouteRef = Pick<Route, 'source' | 'host' | 'path'>;

const CONTROL = /[\x00-\x1f\x7f]/;

/** One strong-quoted config word holding `text` verbatim; refuses control characters. */
export function configWord(route: RouteRef, what: string, text: string): string {
  if (CONTROL.test(text)) throw new HaproxyRouteRefusedError(route, `${what} contains a control character`);
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/**
 * A config word read as a log-format string (set-header values, set-path, redirect locations): `%` starts a
 * sample expression there, so a literal one is doubled and the user's text can never evaluate anything.
 */
export function logFormatWord(route: RouteRef, what: string, text: string): string {
  return configWord(route, what, text.replaceAll('%', '%%'));
}

/**
 * Header and query parameter names: RFC 9110 token characters without those that are syntax inside a sample
 * fetch argument or a config word (`'`, `"`, `#`, `$`, `%`, `&`), starting with a letter or digit so no name
 * reads as an option (`-m`).
 */
export function requireName(route: RouteRef, what: string, name: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9!*+.^_`|~-]*$/.test(name))
    throw new HaproxyRouteRefusedError(route, `${what} ${JSON.stringify(name)} is not a supported name`);
  return name;
}

/** Paths written into rules and rewrites: absolute, no whitespace, no backslash (a back-reference in replace-path). */
export function requirePath(route: RouteRef, what: string, path: string): string {
  if (!path.startsWith('/') || /[\s\\\x00-\x1f\x7f]/.test(path))
    throw new HaproxyRouteRefusedError(route, `${what} ${JSON.stringify(path)} is not an absolute path`);
  return path;
}

/** A DNS name (redirect and rewrite hostnames): letters, digits, `-` and `.`, nothing HAProxy could read. */
export function requireHostname(route: RouteRef, what: string, host: string): string {
  if (!isHostname(host)) throw new HaproxyRouteRefusedError(route, `${what} ${JSON.stringify(host)} is not a hostname`);
  return host;
}

/** A route host as the frontend compares it with the resolved host: '', `*.suffix` or a lower-case DNS name. */
export function requireRouteHost(route: RouteRef): string {
  if (route.host !== '' && !/^(\*\.)?[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(route.host))
    throw new HaproxyRouteRefusedError(route, `host ${JSON.stringify(route.host)} is not a hostname`);
  return route.host;
}

/** An integer in [min, max], e.g. a status code or a port. */
export function requireInteger(route: RouteRef, what: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new HaproxyRouteRefusedError(route, `${what} ${value} is not an integer in ${min}..${max}`);
  return value;
}

/** A POSIX extended regular expression as a PCRE2 pattern that must match the whole subject: `^(?:re)$`. */
export function anchoredRegex(route: RouteRef, what: string, re: string): string {
  const reason = regexProblem(re);
  if (reason !== null) throw new HaproxyRouteRefusedError(route, `${what} ${JSON.stringify(re)}: ${reason}`);
  return configWord(route, what, `^(?:${re})$`);
}
