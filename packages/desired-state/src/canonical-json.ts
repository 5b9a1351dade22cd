import type { JsonValue } from './model.ts';
import { JoinedText } from './joined-text.ts';
import { NotJsonError } from './errors.ts';

/**
 * Serialises JSON canonically (RFC 8785 style for the values plans use): object keys sorted by
 * UTF-16 code units, no whitespace, numbers as ECMAScript prints them. Equal values → equal strings,
 * whatever the insertion order, locale or time zone.
 */
export function canonicalJson(value: unknown): string {
  return encode(value as JsonValue);
}

/** Property names as JSON strings: plans use a few dozen distinct names, quoted once each (bounded for odd inputs). */
const quotedKeys = new Map<string, string>();
const QUOTED_KEYS_MAX = 4096;

function quotedKey(key: string): string {
  let q = quotedKeys.get(key);
  if (q === undefined) {
    q = JSON.stringify(key);
    if (quotedKeys.size < QUOTED_KEYS_MAX) quotedKeys.set(key, q);
  }
  return q;
}

/**
 * Written with string appends and an in-place insertion sort of the keys (objects here have a handful): about twice
 * as fast as mapping, sorting with a comparator and joining, which matters when a whole world is planned from empty
 * (tens of thousands of routes, owners, conditions and pool headers).
 */
function encode(value: JsonValue | undefined): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new NotJsonError(`canonicalJson: non-finite number ${value}`);
      return JSON.stringify(value);
    case 'string':
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) {
        let s = '[';
        for (let i = 0; i < value.length; i++) {
          if (i > 0) s += ',';
          s += encode(value[i] as JsonValue);
        }
        return `${s}]`;
      }
      // A text carried as its parts is the string it joins to.
      if ((value as unknown) instanceof JoinedText) return JSON.stringify(String(value));
      const keys = Object.keys(value);
      sortCodeUnits(keys);
      let s = '{';
      let first = true;
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!;
        const v = (value as Record<string, JsonValue | undefined>)[key];
        if (v === undefined) continue;
        if (!first) s += ',';
        first = false;
        s += quotedKey(key);
        s += ':';
        s += encode(v);
      }
      return `${s}}`;
    }
    default:
      throw new NotJsonError(`canonicalJson: unsupported ${typeof value}`);
  }
}

/** Sorts strings in place by UTF-16 code units (insertion sort: key lists are short and often sorted already). */
function sortCodeUnits(keys: string[]): void {
  if (keys.length > 32) {
    keys.sort(compareCodeUnits);
    return;
  }
  for (let i = 1; i < keys.length; i++) {
    const k = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > k) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = k;
  }
}

/** Orders strings by UTF-16 code units — locale-independent, unlike localeCompare. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
