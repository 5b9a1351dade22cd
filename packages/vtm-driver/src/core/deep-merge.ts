import type { JsonObject, JsonValue } from '@portolan/desired-state';

/** Merges `over` into `base` object by object; arrays and scalars in `over` replace (vTM's own PUT rule). */
export function deepMerge(base: JsonObject, over: JsonObject): JsonObject {
  const out: Record<string, JsonValue> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = out[key];
    out[key] = isPlainObject(current) && isPlainObject(value) ? deepMerge(current, value) : value;
  }
  return out;
}

/** True for a JSON object (not null, not an array). */
export function isPlainObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Vendor JSON from an annotation may be `{properties: {...}}` (the vTM integration's documented form) or the properties themselves. */
export function vendorProperties(vendor: JsonObject): JsonObject {
  const inner = vendor['properties'];
  return isPlainObject(inner) ? inner : vendor;
}

/** Whether everything `want` says is also true of `have`: objects by key, arrays element-wise and same length. */
export function isSubset(want: JsonValue, have: JsonValue | undefined): boolean {
  if (have === undefined) return false;
  if (Array.isArray(want)) {
    return Array.isArray(have) && want.length === have.length && want.every((w, i) => isSubset(w, have[i]));
  }
  if (isPlainObject(want)) {
    return isPlainObject(have) && Object.entries(want).every(([k, w]) => isSubset(w, have[k]));
  }
  return want === have;
}
