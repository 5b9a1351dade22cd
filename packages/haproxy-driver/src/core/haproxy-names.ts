/**
 * Deterministic HAProxy identifiers and file names derived from desired-state names.
 *
 * HAProxy proxy names allow letters, digits, `-`, `_`, `.` and `:`; file stems here avoid `:` as well.
 * A name that needed rewriting gets a short hash of the original appended, so two different originals that
 * rewrite to the same text (`a/b`, `a_b`) still get different identifiers.
 */

/** The mode a backend runs in: `http` for HTTP/HTTPS listeners, `tcp` for TLS passthrough. */
export type BackendMode = 'http' | 'tcp';

/** Backend name for a pool in a mode, e.g. `http:default_web_80-1a2b3c4d`. */
export function backendName(pool: string, mode: BackendMode): string {
  return `${mode}:${safeName(pool, /[^A-Za-z0-9_.:-]/g)}`;
}

/** Frontend name for a virtual service. */
export function frontendName(virtualService: string): string {
  return `fe:${safeName(virtualService, /[^A-Za-z0-9_.:-]/g)}`;
}

/** A file-name-safe stem for a virtual service or certificate name. */
export function fileStem(name: string): string {
  return safeName(name, /[^A-Za-z0-9_.-]/g);
}

/** Slot names made so far, by index: 10k backends of 16 slots then hold 16 name strings, not 160k of each. */
const SLOT_NAMES: string[] = [];

/** The name of the n-th (1-based) server slot of a backend (one string per index, shared by every backend). */
export function slotName(index: number): string {
  return (SLOT_NAMES[index] ??= `s${index}`);
}

/** The 1-based slot number of a slot name, or null when the name is not a slot of ours. */
export function slotIndex(name: string): number | null {
  const match = /^s([1-9][0-9]*)$/.exec(name);
  return match ? Number(match[1]) : null;
}

function safeName(raw: string, invalid: RegExp): string {
  const cleaned = raw.replace(invalid, '_');
  if (cleaned === raw && raw.length > 0 && raw.length <= 80) return raw;
  return `${cleaned.slice(0, 80)}-${fnv1a32(raw)}`;
}

/** FNV-1a (32 bit) over UTF-16 code units, as 8 hex digits: a short, stable, pure disambiguator. */
export function fnv1a32(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
