/**
 * Deterministic vTM object names. Every name starts with `portolan-` so it cannot collide with objects people
 * create by hand, keeps to [A-Za-z0-9._-], and stays within MAX_NAME_LENGTH; when a planner name had to be
 * changed or shortened, a hash of the original keeps distinct inputs distinct.
 */

/** The longest name the driver produces (vTM stores objects as files; stay well clear of filesystem limits). */
export const MAX_NAME_LENGTH = 64;
/** Prefix of every object name the driver creates. */
export const NAME_PREFIX = 'portolan-';

/** Object kinds and the short tag each name carries. */
export type NameKind =
  'vs' | 'route' | 'routeResponse' | 'request' | 'response' | 'pool' | 'monitor' | 'persist' | 'tip' | 'key' | 'acme';

const tags: Readonly<Record<NameKind, string>> = {
  vs: 'vs',
  route: 'rt',
  routeResponse: 'rr',
  request: 'rq',
  response: 'rs',
  pool: 'pl',
  monitor: 'mon',
  persist: 'per',
  tip: 'tip',
  key: 'key',
  acme: 'acme',
};

/** The vTM name of an object of `kind` derived from the planner's name (or an IP address for traffic IP groups). */
export function vtmName(kind: NameKind, source: string): string {
  const head = `${NAME_PREFIX}${tags[kind]}-`;
  const clean = source.replace(/[^A-Za-z0-9._-]/g, '_');
  const full = head + clean;
  if (clean === source && full.length <= MAX_NAME_LENGTH) return full;
  const suffix = `~${fnv1a32(source)}`;
  return full.slice(0, MAX_NAME_LENGTH - suffix.length) + suffix;
}

/** FNV-1a 32-bit over UTF-16 code units, as 8 hex digits: a stable, dependency-free disambiguator. */
export function fnv1a32(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
