/**
 * Creation order: "oldest wins" everywhere (conflicts, shared addresses), so the winner is a pure function of
 * (creationTimestamp, namespace, name) — and cluster, for copies of one app in several clusters — whatever the
 * event order. Timestamps are parsed by hand (never `Date.parse`, which reads the local time zone for some forms).
 */

const WIDTH = 16;
/** Objects without a (parsable) timestamp sort after every dated one: an object that claims no age never takes over. */
const UNDATED = '9'.repeat(WIDTH);

/** Milliseconds since the epoch of an RFC 3339 timestamp (`Z` or ±hh:mm offset), or null if it is not one. */
export function parseRfc3339(text: string): number | null {
  const m =
    /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/.exec(text);
  if (m === null) return null;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return null;
  const fraction = m[7] === undefined ? 0 : Math.floor(Number(`0.${m[7]}`) * 1000);
  let ms = Date.UTC(y, mo - 1, d, h, mi, s, fraction);
  if (m[9] !== undefined) {
    const offset = (Number(m[10]) * 60 + Number(m[11])) * 60_000;
    ms += m[9] === '+' ? -offset : offset;
  }
  return Number.isFinite(ms) && ms >= 0 ? ms : null;
}

/**
 * A string whose code-unit order is the creation order: (timestamp, namespace, name, cluster). Equal for equal
 * identities; never depends on the clock, the time zone or the locale.
 */
export function creationOrderKey(
  creationTimestamp: string | undefined,
  namespace: string,
  name: string,
  cluster: string,
): string {
  const ms = creationTimestamp === undefined ? null : parseRfc3339(creationTimestamp);
  const time = ms === null ? UNDATED : String(ms).padStart(WIDTH, '0');
  return `${time}\u0000${namespace}\u0000${name}\u0000${cluster}`;
}
