/** A parsed point in time, or why the text is not one. */
export type TimeSpecResult =
  { readonly ok: true; readonly at: Date } | { readonly ok: false; readonly message: string };

const UNITS: Readonly<Record<string, number>> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/**
 * Parses a time given on the command line: an ISO 8601 / RFC 3339 timestamp (`2026-11-22T14:02:00Z`, a date
 * `2026-11-22`, or a local `2026-11-22 14:02`), `now`, a relative `-15m` / `2h` (ago; s, m, h, d, w), or
 * milliseconds since the epoch. `now` is passed in: the core never reads the clock.
 */
export function parseTimeSpec(text: string, now: Date): TimeSpecResult {
  const t = text.trim();
  if (t === '') return { ok: false, message: 'empty time' };
  if (t === 'now') return { ok: true, at: now };
  const rel = /^-?(\d+(?:\.\d+)?)([smhdw])(?:\s*ago)?$/.exec(t);
  if (rel !== null) return { ok: true, at: new Date(now.getTime() - Number(rel[1]) * (UNITS[rel[2]!] ?? 0)) };
  if (/^\d{12,}$/.test(t)) return { ok: true, at: new Date(Number(t)) };
  if (/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/.test(t)) {
    const ms = Date.parse(t.includes(' ') ? t.replace(' ', 'T') : t);
    if (!Number.isNaN(ms)) return { ok: true, at: new Date(ms) };
  }
  return { ok: false, message: `cannot read "${text}" as a time (use e.g. 2026-11-22T14:02:00Z, -15m, 2h or now)` };
}
