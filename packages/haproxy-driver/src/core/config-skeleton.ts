/**
 * The structure of a rendered haproxy.cfg: the text with each slot's runtime-changeable part (address, port,
 * enabled/disabled, weight) masked. Two configs with equal skeletons differ only in what the Runtime API can
 * change without a reload; anything else (listeners, backends, slot counts, checks, TLS) needs a reload.
 * Relies on the server-line shape written by `render-backend.ts`.
 */
export function configSkeleton(config: string): string {
  return config.replace(SLOT_LINES, '$1*');
}

const SLOT_LINES = /^(\s+server s\d+ )\S+ (?:enabled|disabled) weight \d+/gm;
const SLOT_LINE = /^(\s+server s\d+ )\S+ (?:enabled|disabled) weight \d+/;

/**
 * True when two configs have the same skeleton. Same answer as comparing `configSkeleton`s, but line by line
 * and without building copies, because it runs on every diff (a 10k-backend config is ~3 MB).
 */
export function isSameStructure(a: string, b: string): boolean {
  if (a === b) return true;
  const left = a.split('\n');
  const right = b.split('\n');
  if (left.length !== right.length) return false;
  for (let i = 0; i < left.length; i++) {
    const x = left[i] ?? '';
    const y = right[i] ?? '';
    if (x === y) continue;
    if (x.replace(SLOT_LINE, '$1*') !== y.replace(SLOT_LINE, '$1*')) return false;
  }
  return true;
}
