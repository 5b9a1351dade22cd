/**
 * The structure of a rendered haproxy.cfg: the text with each slot's runtime-changeable part (address, port,
 * enabled/disabled, weight) masked. Two configs with equal skeletons differ only in what the Runtime API can
 * change without a reload; anything else (listeners, backends, slot counts, checks, TLS) needs a reload.
 * Relies on the server-line shape written by `render-backend.ts`.
 */
export function configSkeleton(config: string): string {
  return config.replace(/^(\s+server s\d+ )\S+ (?:enabled|disabled) weight \d+/gm, '$1*');
}
