import type { JsonValue } from './model.ts';

/**
 * Serialises JSON canonically (RFC 8785 style for the values plans use): object keys sorted by
 * UTF-16 code units, no whitespace, numbers as ECMAScript prints them. Equal values → equal strings,
 * whatever the insertion order, locale or time zone.
 */
export function canonicalJson(value: unknown): string {
  return encode(value as JsonValue);
}

function encode(value: JsonValue | undefined): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: non-finite number ${value}`);
      return JSON.stringify(value);
    case 'string':
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) return `[${value.map((v) => encode(v as JsonValue)).join(',')}]`;
      const keys = Object.keys(value).sort(compareCodeUnits);
      const parts: string[] = [];
      for (const key of keys) {
        const v = (value as Record<string, JsonValue | undefined>)[key];
        if (v === undefined) continue;
        parts.push(`${JSON.stringify(key)}:${encode(v)}`);
      }
      return `{${parts.join(',')}}`;
    }
    default:
      throw new TypeError(`canonicalJson: unsupported ${typeof value}`);
  }
}

/** Orders strings by UTF-16 code units — locale-independent, unlike localeCompare. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
