import { cloneJson, isJsonObject, type JsonObject } from './json-value.ts';

function merge(target: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return cloneJson(patch);
  const result: JsonObject = isJsonObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = merge(result[key], value);
  }
  return result;
}

/** Applies an RFC 7386 JSON merge patch (`application/merge-patch+json`); returns a new object. */
export function applyJsonMergePatch(original: JsonObject, patch: unknown): JsonObject {
  const merged = merge(original, patch);
  return isJsonObject(merged) ? merged : {};
}
