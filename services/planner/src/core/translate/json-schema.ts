import type { JsonObject, JsonValue } from '@portolan/desired-state';
import { portableRegexProblem } from './portable-regex.ts';

/**
 * A small, strict schema language for annotation JSON: objects list every allowed key (unknown keys are errors),
 * scalars carry their bounds. An allowlist, because blocklists of dangerous fields always miss one.
 */
export type Schema =
  | {
      readonly type: 'object';
      readonly properties: Readonly<Record<string, Schema>>;
      readonly required?: readonly string[];
    }
  | {
      readonly type: 'string';
      readonly maxLength: number;
      readonly pattern?: RegExp;
      readonly enum?: readonly string[];
      readonly regex?: true;
    }
  | { readonly type: 'integer'; readonly min: number; readonly max: number }
  | { readonly type: 'boolean' }
  | { readonly type: 'array'; readonly items: Schema; readonly maxItems: number };

/** Checks a parsed value; returns the first problem as "path: reason", or null when the value conforms. */
export function checkSchema(value: JsonValue, schema: Schema, path = '$'): string | null {
  switch (schema.type) {
    case 'object':
      return checkObject(value, schema, path);
    case 'string':
      if (typeof value !== 'string') return `${path}: must be a string`;
      if (value.length > schema.maxLength) return `${path}: longer than ${schema.maxLength} characters`;
      if (schema.enum !== undefined && !schema.enum.includes(value))
        return `${path}: must be one of ${schema.enum.join(', ')}`;
      if (schema.pattern !== undefined && !schema.pattern.test(value)) return `${path}: has a disallowed format`;
      if (schema.regex === true) return regexProblem(value, path);
      return null;
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) return `${path}: must be an integer`;
      if (value < schema.min || value > schema.max) return `${path}: must be between ${schema.min} and ${schema.max}`;
      return null;
    case 'boolean':
      return typeof value === 'boolean' ? null : `${path}: must be true or false`;
    case 'array':
      if (!Array.isArray(value)) return `${path}: must be an array`;
      if (value.length > schema.maxItems) return `${path}: more than ${schema.maxItems} items`;
      for (let i = 0; i < value.length; i++) {
        const problem = checkSchema(value[i] as JsonValue, schema.items, `${path}[${i}]`);
        if (problem !== null) return problem;
      }
      return null;
  }
}

/**
 * A regular expression the appliance will compile (HAProxy with PCRE2, vTM with PCRE): one the appliance refuses
 * would break its whole configuration for everyone, so anything outside the subset every engine reads the same way
 * is refused on its object instead (portable-regex.ts).
 */
function regexProblem(value: string, path: string): string | null {
  try {
    new RegExp(value);
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e;
    return `${path}: is not a valid regular expression (${e.message.replace(/^Invalid regular expression: /, '').slice(0, 120)})`;
  }
  const problem = portableRegexProblem(value);
  return problem === null
    ? null
    : `${path}: is outside the regular expressions every appliance compiles alike (${problem})`;
}

function checkObject(value: JsonValue, schema: Extract<Schema, { type: 'object' }>, path: string): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `${path}: must be an object`;
  const obj = value as JsonObject;
  for (const key of Object.keys(obj).sort()) {
    const sub = Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined;
    if (sub === undefined) return `${path}.${key.slice(0, 60)}: unknown key`;
    const problem = checkSchema(obj[key] as JsonValue, sub, `${path}.${key}`);
    if (problem !== null) return problem;
  }
  for (const key of schema.required ?? []) if (!Object.hasOwn(obj, key)) return `${path}.${key}: required`;
  return null;
}

/** Shorthands that keep schema tables readable. */
export const s = {
  obj: (properties: Record<string, Schema>, required?: readonly string[]): Schema => ({
    type: 'object',
    properties,
    ...(required ? { required } : {}),
  }),
  str: (maxLength: number, pattern?: RegExp): Schema => ({
    type: 'string',
    maxLength,
    ...(pattern ? { pattern } : {}),
  }),
  /** A printable string that must compile as a regular expression. */
  regex: (maxLength: number): Schema => ({ type: 'string', maxLength, pattern: /^[\x20-\x7e]*$/, regex: true }),
  oneOf: (...values: string[]): Schema => ({ type: 'string', maxLength: 64, enum: values }),
  int: (min: number, max: number): Schema => ({ type: 'integer', min, max }),
  bool: { type: 'boolean' } as Schema,
  list: (items: Schema, maxItems: number): Schema => ({ type: 'array', items, maxItems }),
};
