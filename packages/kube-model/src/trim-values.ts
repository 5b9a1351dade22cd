import type { JsonValue } from './objects.ts';

// Reading untrusted JSON field by field: each helper returns the value only when it has the expected type, so a
// trimmed object never carries a value of the wrong shape into the planner.

/** `s`, as the previous version's string when that is equal (the same value; only the copy kept differs). */
export function held(s: string, previous: string | undefined): string {
  return previous === s ? previous : s;
}

export function record(x: unknown): Record<string, unknown> | undefined {
  return typeof x === 'object' && x !== null && !Array.isArray(x) ? (x as Record<string, unknown>) : undefined;
}

export function str(x: unknown): string | undefined {
  return typeof x === 'string' ? x : undefined;
}

export function int(x: unknown): number | undefined {
  return typeof x === 'number' && Number.isSafeInteger(x) ? x : undefined;
}

export function strMap(x: unknown): Record<string, string> | undefined {
  const r = record(x);
  if (r === undefined) return undefined;
  const out: Record<string, string> = {};
  for (const key of Object.keys(r).sort()) {
    const v = r[key];
    if (typeof v === 'string')
      Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Own enumerable string keys of a trimmed map (labels, annotations), counted without building the key list. */
export function keyCount(o: Readonly<Record<string, string>>): number {
  let n = 0;
  for (const k in o) if (Object.prototype.hasOwnProperty.call(o, k)) n++;
  return n;
}

/**
 * The items of `x` that `f` keeps, in an array sized once: trimmed lists live as long as their object, and one grown
 * by push from empty holds 17 slots whatever its length (152 B for a one-address endpoint: 15 MB of the world's heap
 * at 10k Services).
 */
export function list<T>(x: unknown, f: (item: unknown, index: number) => T | undefined): T[] | undefined {
  if (!Array.isArray(x)) return undefined;
  const out = new Array<T>(x.length);
  let n = 0;
  for (let i = 0; i < x.length; i++) {
    const v = f(x[i], i);
    if (v !== undefined) out[n++] = v;
  }
  out.length = n;
  return out;
}

/** Drops undefined members so equal content has equal keys (and equal canonical bytes). Hot: no Object.entries. */
export function defined<T extends object>(o: T): T {
  const src = o as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k in src) {
    const v = src[k];
    if (v !== undefined) out[k] = v;
  }
  return out as T;
}

/** How deep a Gateway API spec may nest (the CRDs' schemas nest about 8 levels); anything deeper is dropped. */
const MAX_SPEC_DEPTH = 32;

/** `x` as a JSON value: objects with sorted keys, only finite numbers, nothing else (functions, undefined) kept. */
export function jsonValue(x: unknown, depth: number): JsonValue | undefined {
  if (x === null || typeof x === 'boolean' || typeof x === 'string') return x;
  if (typeof x === 'number') return Number.isFinite(x) ? x : undefined;
  if (depth >= MAX_SPEC_DEPTH || typeof x !== 'object') return undefined;
  if (Array.isArray(x)) return list(x, (item) => jsonValue(item, depth + 1)) ?? [];
  const out: Record<string, JsonValue> = {};
  const r = x as Record<string, unknown>;
  for (const key of Object.keys(r).sort()) {
    const v = jsonValue(r[key], depth + 1);
    if (v !== undefined)
      Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
