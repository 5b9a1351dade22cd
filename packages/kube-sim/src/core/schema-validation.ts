// What the API server does with a custom resource against its structural schema, in its order: prune unknown
// fields and nulls, apply defaults, validate (types, bounds, enums, required, patterns), check list-type
// invariants, then — unless an earlier error leaves the object without the shape the rules expect — evaluate the
// x-kubernetes-validations rules. Messages are worded as the API server's field errors.
import { cloneJson, isJsonObject, type JsonObject } from './json-value.ts';
import type { FieldProblem } from './kind-rules.ts';
import type { SchemaNode } from './structural-schema.ts';

/** A rule that could not be evaluated (CEL's `no such key: x`); reported with the rule's message. */
export class RuleEvaluationError {
  readonly message: string;
  constructor(message: string) {
    this.message = message;
  }
}

/** CEL field selection `o.key`, which is an evaluation error when the field is absent. */
export function field(o: JsonObject, key: string): unknown {
  if (o[key] === undefined) throw new RuleEvaluationError(`no such key: ${key}`);
  return o[key];
}

function child(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function quote(value: string): string {
  return JSON.stringify(value);
}

/** How Go prints a JSON value with `%v` in a field error: strings quoted, numbers and booleans bare. */
function shown(value: unknown): string {
  return typeof value === 'string' ? quote(value) : String(value);
}

/** The JSON type of a value in the validator's words (`integer` for whole numbers). */
function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/**
 * Drops the fields the schema does not declare (their paths go to `unknown`, for fieldValidation) and null
 * values, then fills in defaults, recursing into defaulted values too. Returns the pruned, defaulted value.
 */
export function pruneAndDefault(schema: SchemaNode, value: unknown, path: string, unknown: string[]): unknown {
  if (schema.type === 'array' && Array.isArray(value) && schema.items !== undefined) {
    const items = schema.items;
    return value
      .filter((v) => v !== null)
      .map((v: unknown, i: number) => pruneAndDefault(items, v, `${path}[${i}]`, unknown));
  }
  if (schema.type !== 'object' || !isJsonObject(value)) return value;
  if (schema.additionalProperties !== undefined) {
    const values = schema.additionalProperties;
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value))
      if (v !== null) out[k] = pruneAndDefault(values, v, child(path, k), unknown);
    return sortedKeys(out);
  }
  if (schema.properties === undefined) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    const sub = schema.properties[k];
    if (sub === undefined) unknown.push(child(path, k));
    else if (v !== null) out[k] = v;
  }
  for (const [k, sub] of Object.entries(schema.properties)) {
    if (out[k] === undefined && sub.default !== undefined) out[k] = cloneJson(sub.default);
    if (out[k] !== undefined) out[k] = pruneAndDefault(sub, out[k], child(path, k), unknown);
  }
  return sortedKeys(out);
}

/** The object with its keys in order, as the API server's encoding of a custom resource (a Go map) has them. */
function sortedKeys(o: JsonObject): JsonObject {
  return Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, o[k]]),
  );
}

interface Findings {
  readonly schema: FieldProblem[];
  readonly lists: FieldProblem[];
}

function invalid(path: string, value: unknown, detail: string): FieldProblem {
  return { field: path, message: `Invalid value: ${shown(value)}: ${detail}`, reason: 'FieldValueInvalid' };
}

function typeInvalid(path: string, value: unknown, detail: string): FieldProblem {
  return { field: path, message: `Invalid value: ${shown(value)}: ${detail}`, reason: 'FieldValueTypeInvalid' };
}

function tooMany(path: string, actual: number, max: number): FieldProblem {
  return { field: path, message: `Too many: ${actual}: must have at most ${max} items`, reason: 'FieldValueTooMany' };
}

const patterns = new Map<string, RegExp>();

function compiled(pattern: string): RegExp {
  let re = patterns.get(pattern);
  if (re === undefined) {
    re = new RegExp(pattern);
    patterns.set(pattern, re);
  }
  return re;
}

const dateTime = /^\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d:\d\d(\.\d+)?([Zz]|[+-]\d\d:\d\d)$/;

function checkString(schema: SchemaNode, value: string, path: string, out: FieldProblem[]): void {
  const length = [...value].length;
  if (schema.maxLength !== undefined && length > schema.maxLength)
    out.push({
      field: path,
      message: `Too long: may not be longer than ${schema.maxLength}`,
      reason: 'FieldValueTooLong',
    });
  if (schema.minLength !== undefined && length < schema.minLength)
    out.push(invalid(path, value, `${path} in body should be at least ${schema.minLength} chars long`));
  if (schema.pattern !== undefined && !compiled(schema.pattern).test(value))
    out.push(invalid(path, value, `${path} in body should match '${schema.pattern}'`));
  if (schema.format === 'date-time' && !dateTime.test(value))
    out.push(typeInvalid(path, value, `${path} in body must be of type date-time: ${quote(value)}`));
}

function checkNumber(schema: SchemaNode, value: number, path: string, out: FieldProblem[]): void {
  if (schema.maximum !== undefined && value > schema.maximum)
    out.push(invalid(path, value, `${path} in body should be less than or equal to ${schema.maximum}`));
  if (schema.minimum !== undefined && value < schema.minimum)
    out.push(invalid(path, value, `${path} in body should be greater than or equal to ${schema.minimum}`));
}

function checkEnum(schema: SchemaNode, value: unknown, path: string, out: FieldProblem[]): void {
  if (schema.enum === undefined || schema.enum.includes(value as string | number)) return;
  const supported = schema.enum.map((v) => quote(String(v))).join(', ');
  out.push({
    field: path,
    message: `Unsupported value: ${shown(value)}: supported values: ${supported}`,
    reason: 'FieldValueNotSupported',
  });
}

/** Go's `%#v` of the key fields of a list-map entry, as a Duplicate error prints it. */
function keyText(entry: JsonObject, keys: readonly string[]): string {
  const parts = keys.map((k) => `${quote(k)}:${typeof entry[k] === 'string' ? quote(entry[k]) : String(entry[k])}`);
  return `map[string]interface {}{${parts.join(', ')}}`;
}

function checkListType(schema: SchemaNode, value: unknown[], path: string, out: FieldProblem[]): void {
  const seen = new Set<string>();
  value.forEach((item, i) => {
    const keys = schema.listMapKeys ?? [];
    const key =
      schema.listType === 'map' && isJsonObject(item) ? JSON.stringify(keys.map((k) => item[k])) : JSON.stringify(item);
    if (!seen.has(key)) seen.add(key);
    else
      out.push({
        field: `${path}[${i}]`,
        message: `Duplicate value: ${schema.listType === 'map' && isJsonObject(item) ? keyText(item, keys) : shown(item)}`,
        reason: 'FieldValueDuplicate',
      });
  });
}

function checkArray(schema: SchemaNode, value: unknown[], path: string, found: Findings): void {
  if (schema.maxItems !== undefined && value.length > schema.maxItems)
    found.schema.push(tooMany(path, value.length, schema.maxItems));
  if (schema.minItems !== undefined && value.length < schema.minItems)
    found.schema.push(invalid(path, value.length, `${path} in body should have at least ${schema.minItems} items`));
  const items = schema.items;
  if (items !== undefined) value.forEach((v, i) => walk(items, v, `${path}[${i}]`, found));
  if (schema.listType === 'map' || schema.listType === 'set') checkListType(schema, value, path, found.lists);
}

function checkObject(schema: SchemaNode, value: JsonObject, path: string, found: Findings): void {
  const size = Object.keys(value).length;
  if (schema.maxProperties !== undefined && size > schema.maxProperties)
    found.schema.push(tooMany(path, size, schema.maxProperties));
  for (const key of schema.required ?? [])
    if (value[key] === undefined)
      found.schema.push({ field: child(path, key), message: 'Required value', reason: 'FieldValueRequired' });
  const values = schema.additionalProperties;
  if (values !== undefined) for (const [k, v] of Object.entries(value)) walk(values, v, child(path, k), found);
  for (const [k, sub] of Object.entries(schema.properties ?? {}))
    if (value[k] !== undefined) walk(sub, value[k], child(path, k), found);
}

function walk(schema: SchemaNode, value: unknown, path: string, found: Findings): void {
  const actual = typeName(value);
  if (actual !== schema.type) {
    const detail = `${path} in body must be of type ${schema.type}: ${quote(actual)}`;
    found.schema.push(typeInvalid(path, actual, detail));
    return;
  }
  checkEnum(schema, value, path, found.schema);
  if (typeof value === 'string') checkString(schema, value, path, found.schema);
  else if (typeof value === 'number') checkNumber(schema, value, path, found.schema);
  else if (Array.isArray(value)) checkArray(schema, value, path, found);
  else if (isJsonObject(value)) checkObject(schema, value, path, found);
}

/** The error types after which the API server does not evaluate validation rules. */
const blocking = new Set([
  'FieldValueNotSupported',
  'FieldValueRequired',
  'FieldValueTooLong',
  'FieldValueTooMany',
  'FieldValueTypeInvalid',
]);

function evaluateRules(schema: SchemaNode, value: unknown, old: unknown, at: string, out: FieldProblem[]): void {
  // The root's field path is nil, which Go prints as <nil>.
  const path = at === '' ? '<nil>' : at;
  for (const r of schema.rules ?? []) {
    if (r.transition === true && old === undefined) continue;
    try {
      if (!r.check(value, old)) out.push(invalid(path, schema.type, r.message));
    } catch (e) {
      if (!(e instanceof RuleEvaluationError)) throw e;
      out.push(invalid(path, schema.type, `${e.message} evaluating rule: ${r.message}`));
    }
  }
}

/** Old list items correlate with new ones only in map lists, by their keys (as transition rules see them). */
function correlated(schema: SchemaNode, old: unknown, item: unknown): unknown {
  if (schema.listType !== 'map' || !Array.isArray(old) || !isJsonObject(item)) return undefined;
  const keys = schema.listMapKeys ?? [];
  return old.find((o: unknown) => isJsonObject(o) && keys.every((k) => o[k] === item[k]));
}

function walkRules(schema: SchemaNode, value: unknown, old: unknown, path: string, out: FieldProblem[]): void {
  evaluateRules(schema, value, old, path, out);
  if (Array.isArray(value) && schema.items !== undefined) {
    const items = schema.items;
    value.forEach((v, i) => walkRules(items, v, correlated(schema, old, v), `${path}[${i}]`, out));
  } else if (isJsonObject(value)) {
    const oldObject = isJsonObject(old) ? old : {};
    const values = schema.additionalProperties;
    if (values !== undefined)
      for (const [k, v] of Object.entries(value)) walkRules(values, v, oldObject[k], child(path, k), out);
    for (const [k, sub] of Object.entries(schema.properties ?? {}))
      if (value[k] !== undefined) walkRules(sub, value[k], oldObject[k], child(path, k), out);
  }
}

/** Validates a pruned, defaulted object against its schema and rules (`old` on updates, for transition rules). */
export function validateAgainstSchema(schema: SchemaNode, value: unknown, old: unknown): FieldProblem[] {
  const found: Findings = { schema: [], lists: [] };
  walk(schema, value, '', found);
  const problems = [...found.schema, ...found.lists];
  if (problems.some((p) => p.reason !== undefined && blocking.has(p.reason))) {
    const message =
      'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';
    return [...problems, { field: '<nil>', message, reason: 'FieldValueInvalid' }];
  }
  walkRules(schema, value, old, '', problems);
  return problems;
}
