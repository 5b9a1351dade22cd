import type { FieldSpec, ResourceSchema } from './schema/index.ts';
import type { Json, Properties } from './validate-properties.ts';

/**
 * PUT semantics of vTM's REST API: a partial body is merged section by section and key by key over
 * the existing object (or the defaults on create); lists and tables are replaced wholesale, and table rows
 * get their column defaults. The result always holds every section and key.
 */
export function mergeProperties(schema: ResourceSchema, existing: Properties | null, body: Properties): Properties {
  const base = existing ?? defaultProperties(schema);
  const out: Properties = {};
  for (const [section, keys] of Object.entries(schema.sections)) {
    const merged: Record<string, Json> = { ...base[section] };
    for (const [key, spec] of Object.entries(keys)) {
      const given = body[section]?.[key];
      if (given !== undefined) merged[key] = withDefaults(spec, given);
    }
    out[section] = merged;
  }
  return out;
}

/** A new object with every key at its default. */
export function defaultProperties(schema: ResourceSchema): Properties {
  const out: Properties = {};
  for (const [section, keys] of Object.entries(schema.sections)) {
    out[section] = Object.fromEntries(Object.entries(keys).map(([k, spec]) => [k, defaultValue(spec)]));
  }
  return out;
}

function defaultValue(spec: FieldSpec): Json {
  if (spec.kind === 'table') return [];
  if (spec.kind === 'list') return [...spec.default];
  return spec.default;
}

function withDefaults(spec: FieldSpec, value: Json): Json {
  if (spec.kind !== 'table' || !Array.isArray(value)) return Array.isArray(value) ? [...value] : value;
  return value.map((row) => {
    const full: Record<string, Json> = {};
    for (const [column, columnSpec] of Object.entries(spec.columns)) {
      const cell = (row as Record<string, Json>)[column];
      full[column] = cell === undefined ? defaultValue(columnSpec) : withDefaults(columnSpec, cell);
    }
    return full;
  });
}
