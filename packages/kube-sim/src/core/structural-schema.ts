// The structural OpenAPI schema of a custom resource, as the API server holds it for a CRD version: the types,
// bounds, enums, defaults, list types and x-kubernetes-validations rules it prunes, defaults and validates with.
// CEL rules are carried as TypeScript predicates with the rule's own message.
import { isJsonObject, type JsonObject } from './json-value.ts';

/** A schema node's `type`. */
export type SchemaType = 'object' | 'array' | 'string' | 'integer' | 'boolean';

/**
 * One x-kubernetes-validations rule: `check` is the CEL expression's meaning for `self` (and `oldSelf`, which
 * transition rules alone read, and which only they wait for: they run on updates where the old value exists).
 */
export interface SchemaRule {
  readonly message: string;
  readonly check: (self: unknown, oldSelf: unknown) => boolean;
  readonly transition?: boolean;
}

/** One node of a structural schema. */
export interface SchemaNode {
  readonly type: SchemaType;
  /** Object fields; an object with neither properties nor additionalProperties keeps whatever it holds. */
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  /** The schema of a map's values. */
  readonly additionalProperties?: SchemaNode;
  readonly items?: SchemaNode;
  readonly required?: readonly string[];
  readonly enum?: readonly (string | number)[];
  readonly default?: unknown;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly maxProperties?: number;
  readonly format?: 'date-time' | 'int32' | 'int64';
  readonly listType?: 'map' | 'set' | 'atomic';
  readonly listMapKeys?: readonly string[];
  readonly rules?: readonly SchemaRule[];
}

type Extra = Omit<SchemaNode, 'type' | 'properties' | 'items' | 'additionalProperties'>;

/** A string node. */
export function str(extra: Extra = {}): SchemaNode {
  return { type: 'string', ...extra };
}

/** An integer node (`format: int32` unless told otherwise, as the Go types declare them). */
export function int(extra: Extra = {}): SchemaNode {
  return { type: 'integer', format: 'int32', ...extra };
}

/** An object node with its fields. */
export function obj(properties: Record<string, SchemaNode>, extra: Extra = {}): SchemaNode {
  return { type: 'object', properties, ...extra };
}

/** An array node of `items`. */
export function arr(items: SchemaNode, extra: Extra = {}): SchemaNode {
  return { type: 'array', items, ...extra };
}

/** A map node (`additionalProperties`) of `values`. */
export function map(values: SchemaNode, extra: Extra = {}): SchemaNode {
  return { type: 'object', additionalProperties: values, ...extra };
}

/** A rule built from its message and predicate. */
export function rule(message: string, check: (self: unknown) => boolean): SchemaRule {
  return { message, check };
}

/** The rule `self == oldSelf` with the message the CRDs give it. */
export const immutable: SchemaRule = {
  message: 'Value is immutable',
  transition: true,
  check: (self, oldSelf) => JSON.stringify(self) === JSON.stringify(oldSelf),
};

// Accessors for rule predicates, which read JSON of a shape the schema has already checked.

/** The value as an object ({} when it is not one). */
export function asObject(value: unknown): JsonObject {
  return isJsonObject(value) ? value : {};
}

/** The value as an array ([] when it is not one). */
export function asList(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.map(asObject) : [];
}

/** CEL `has(o.key)`: the field is present. */
export function has(o: JsonObject, key: string): boolean {
  return o[key] !== undefined;
}

/** CEL `!has(o.key) || o.key == ''`: an optional string left unset or empty. */
export function unsetOrEmpty(o: JsonObject, key: string): boolean {
  return o[key] === undefined || o[key] === '';
}

/** CEL `list.exists_one(x, p(x))`. */
export function existsOne<T>(list: readonly T[], p: (x: T) => boolean): boolean {
  return list.filter(p).length === 1;
}
