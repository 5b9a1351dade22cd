import { RenderRefusedError } from '@portolan/appliance-driver';
import type { Route } from '@portolan/desired-state';
import { isHostname, regexProblem } from '@portolan/routing';

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
  if (!isHostname(host)) throw new VtmRouteRefusedError(route, `${what} ${JSON.stringify(host)} is not a hostname`);
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
