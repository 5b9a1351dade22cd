/**
 * The vocabulary the emulator's resource schemas are written in: one spec per configuration key, with its
 * default, its constraints and (for strict mode) the resource type a value refers to.
 */

/** A configuration key's type, default and constraints. */
export type FieldSpec =
  | { readonly kind: 'string'; readonly default: string; readonly ref?: string; readonly alwaysCheckRef?: boolean }
  | { readonly kind: 'bool'; readonly default: boolean }
  | { readonly kind: 'int'; readonly default: number; readonly min: number; readonly max: number }
  | { readonly kind: 'enum'; readonly default: string; readonly values: readonly string[] }
  | {
      readonly kind: 'list';
      readonly default: readonly string[];
      readonly ref?: string;
      readonly alwaysCheckRef?: boolean;
    }
  | { readonly kind: 'table'; readonly key: string; readonly columns: Readonly<Record<string, FieldSpec>> };

/** The sections of one resource type, each a map of key → spec. */
export interface ResourceSchema {
  readonly sections: Readonly<Record<string, Readonly<Record<string, FieldSpec>>>>;
  /** Keys a create must name, as [section, key] (e.g. a virtual server's pool and port). */
  readonly requiredOnCreate: readonly (readonly [string, string])[];
  /** Keys stored in clear but shown as base64 SHA-256 on every read (an SSL key's `private`). */
  readonly hashedOnRead: readonly (readonly [string, string])[];
}

/** A string key (default ''), optionally naming the type it refers to. */
export function str(def = '', ref?: string, alwaysCheckRef = false): FieldSpec {
  return ref === undefined ? { kind: 'string', default: def } : { kind: 'string', default: def, ref, alwaysCheckRef };
}

/** A boolean key. */
export function bool(def: boolean): FieldSpec {
  return { kind: 'bool', default: def };
}

/** An integer key within [min, max]. */
export function int(def: number, min = 0, max = 2147483647): FieldSpec {
  return { kind: 'int', default: def, min, max };
}

/** A key limited to a set of words. */
export function oneOf(def: string, values: readonly string[]): FieldSpec {
  return { kind: 'enum', default: def, values };
}

/** A list of strings (default empty), optionally naming the type its entries refer to. */
export function list(ref?: string, alwaysCheckRef = false, def: readonly string[] = []): FieldSpec {
  return ref === undefined ? { kind: 'list', default: def } : { kind: 'list', default: def, ref, alwaysCheckRef };
}

/** A table: an array of rows identified by the `key` column; replaced wholesale on every write. */
export function table(key: string, columns: Record<string, FieldSpec>): FieldSpec {
  return { kind: 'table', key, columns };
}

/** Values vTM uses for the three-way TLS switches. */
export const useDefault = ['disabled', 'enabled', 'use_default'] as const;
