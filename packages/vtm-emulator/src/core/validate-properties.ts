import { leaf, setInfo, type ErrorInfo, type ErrorLeaf } from './error-body.ts';
import type { FieldSpec, ResourceSchema } from './schema/index.ts';

/** A JSON object as the emulator receives it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** The `properties` of one stored object: section → key → value. */
export type Properties = Record<string, Record<string, Json>>;

const unknownProperty = leaf('json.unknown_property', 'Property is unknown');

/** Checks a (partial) `properties` body against a schema; returns nested `error_info`, or null when valid. */
export function validateProperties(body: unknown, schema: ResourceSchema): ErrorInfo | null {
  const info: ErrorInfo = {};
  if (!isObject(body)) return { properties: leaf('json.wrong_type', 'Value must be an object') };
  for (const [section, keys] of Object.entries(body)) {
    const sectionSpec = schema.sections[section];
    if (sectionSpec === undefined) {
      setInfo(info, [section], unknownProperty);
      continue;
    }
    if (!isObject(keys)) {
      setInfo(info, [section], leaf('json.wrong_type', 'Section must be an object'));
      continue;
    }
    for (const [key, value] of Object.entries(keys)) {
      const spec = sectionSpec[key];
      if (spec === undefined) setInfo(info, [section, key], unknownProperty);
      else checkField(spec, value, [section, key], info);
    }
  }
  return Object.keys(info).length === 0 ? null : info;
}

/** Validates one value; table rows report under their primary key. */
function checkField(spec: FieldSpec, value: unknown, path: readonly string[], info: ErrorInfo): void {
  if (spec.kind === 'table') {
    checkTable(spec, value, path, info);
    return;
  }
  const problem = checkScalar(spec, value);
  if (problem !== null) setInfo(info, path, problem);
}

function checkScalar(spec: Exclude<FieldSpec, { kind: 'table' }>, value: unknown): ErrorLeaf | null {
  switch (spec.kind) {
    case 'string':
      return typeof value === 'string' ? null : leaf('json.wrong_type', 'Value must be a string');
    case 'bool':
      return typeof value === 'boolean' ? null : leaf('json.wrong_type', 'Value must be a boolean');
    case 'int':
      if (typeof value !== 'number' || !Number.isInteger(value))
        return leaf('json.wrong_type', 'Value must be an integer');
      return value < spec.min || value > spec.max
        ? leaf('num.out_of_range', `Value '${value}' must be within ${spec.min}-${spec.max}`)
        : null;
    case 'enum':
      return typeof value === 'string' && spec.values.includes(value)
        ? null
        : leaf('enum.invalid_value', `Value '${String(value)}' is not one of: ${spec.values.join(', ')}`);
    case 'list':
      return Array.isArray(value) && value.every((v) => typeof v === 'string')
        ? null
        : leaf('json.wrong_type', 'Value must be a list of strings');
  }
}

function checkTable(
  spec: Extract<FieldSpec, { kind: 'table' }>,
  value: unknown,
  path: readonly string[],
  info: ErrorInfo,
): void {
  if (!Array.isArray(value)) {
    setInfo(info, path, leaf('json.invalid_table', 'Value must be a table (a list of rows)'));
    return;
  }
  const seen = new Set<string>();
  for (const row of value) {
    const key = isObject(row) ? row[spec.key] : undefined;
    if (typeof key !== 'string' || key === '') {
      setInfo(info, path, leaf('json.invalid_table', `Every row needs a '${spec.key}' field`));
      return;
    }
    if (seen.has(key)) {
      setInfo(info, [...path, key], leaf('json.invalid_table', `Duplicate row '${key}'`));
      continue;
    }
    seen.add(key);
    for (const [column, cell] of Object.entries(row as Record<string, unknown>)) {
      const columnSpec = spec.columns[column];
      if (columnSpec === undefined) setInfo(info, [...path, key, column], unknownProperty);
      else checkField(columnSpec, cell, [...path, key, column], info);
    }
  }
}

/** True for a plain JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
