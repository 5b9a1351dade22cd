import type { PathMatch } from '@portolan/desired-state';

/** A normalised Ingress path, or why it is unusable. */
export type PathResult =
  | { readonly ok: true; readonly path: string; readonly match: PathMatch }
  | { readonly ok: false; readonly reason: 'InvalidPath' | 'InvalidPathType'; readonly message: string };

const MAX_PATH = 2048;

/**
 * Normalises one Ingress path. `ImplementationSpecific` (and a missing pathType, the v1beta1 default) is planned
 * as `Prefix` — Portolan's documented choice. A Prefix path loses trailing slashes ("/foo/" matches "/foo" and
 * "/foo/" per the Kubernetes table), so `/foo` and `/foo/` are one route; Exact paths are kept verbatim.
 */
export function normalizePath(path: string | undefined, pathType: string | undefined): PathResult {
  const type = pathType ?? 'ImplementationSpecific';
  if (type !== 'Exact' && type !== 'Prefix' && type !== 'ImplementationSpecific') {
    return {
      ok: false,
      reason: 'InvalidPathType',
      message: `pathType "${type.slice(0, 40)}" is not Exact, Prefix or ImplementationSpecific`,
    };
  }
  let p = path ?? (type === 'ImplementationSpecific' ? '/' : undefined);
  if (p === '' && type === 'ImplementationSpecific') p = '/';
  if (p === undefined || !p.startsWith('/'))
    return { ok: false, reason: 'InvalidPath', message: `path "${(p ?? '').slice(0, 80)}" must start with "/"` };
  if (p.length > MAX_PATH)
    return { ok: false, reason: 'InvalidPath', message: `path is ${p.length} characters long (at most ${MAX_PATH})` };
  if (/[^\x21-\x7e]|[?#\\]/.test(p)) {
    return {
      ok: false,
      reason: 'InvalidPath',
      message: `path "${p.slice(0, 80).replace(/[^\x20-\x7e]/g, '?')}" has a space, control, non-ASCII, "?", "#" or "\\" character`,
    };
  }
  if (type === 'Exact') return { ok: true, path: p, match: 'Exact' };
  while (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  return { ok: true, path: p, match: 'Prefix' };
}

/** Whether a normalised route path matches a request path: Exact is equality; Prefix matches whole path elements. */
export function pathMatches(match: PathMatch, path: string, requestPath: string): boolean {
  if (match === 'Exact') return requestPath === path;
  if (match === 'Regex') return regexMatches(path, requestPath);
  if (path === '/') return true;
  return requestPath === path || requestPath.startsWith(`${path}/`);
}

/** A Regex path (an HTTPRoute's RegularExpression) against the whole request path; an unreadable one matches nothing. */
function regexMatches(pattern: string, requestPath: string): boolean {
  try {
    return new RegExp(`^(?:${pattern})$`).test(requestPath);
  } catch {
    return false;
  }
}
