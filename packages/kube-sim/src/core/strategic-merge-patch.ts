import { cloneJson, isJsonObject, jsonEqual, type JsonObject } from './json-value.ts';

/** How one list field merges under a strategic merge patch (the Go struct tags `patchStrategy`/`patchMergeKey`). */
export interface ListMergeRule {
  readonly mergeKey?: string;
}

/** Merge rules by dotted field path (list indices omitted) for one kind. */
export type PatchMeta = Readonly<Record<string, ListMergeRule>>;

const metadataRules: PatchMeta = {
  'metadata.finalizers': {},
  'metadata.ownerReferences': { mergeKey: 'uid' },
};

const rulesByKind: Readonly<Record<string, PatchMeta>> = {
  Service: { 'spec.ports': { mergeKey: 'port' } },
  Node: { 'status.conditions': { mergeKey: 'type' }, 'status.addresses': { mergeKey: 'type' }, 'spec.podCIDRs': {} },
  Namespace: { 'status.conditions': { mergeKey: 'type' } },
};

/** The strategic-merge rules of a kind: lists not named here are replaced wholesale (atomic). */
export function patchMetaFor(kind: string): PatchMeta {
  return { ...metadataRules, ...rulesByKind[kind] };
}

const remove = Symbol('remove');

function keyOf(item: unknown, mergeKey: string): unknown {
  return isJsonObject(item) ? item[mergeKey] : undefined;
}

function orderList(list: unknown[], order: readonly unknown[], mergeKey: string | undefined): unknown[] {
  const rank = (item: unknown): number => {
    const i = order.findIndex((o) =>
      mergeKey === undefined ? jsonEqual(o, item) : jsonEqual(keyOf(o, mergeKey), keyOf(item, mergeKey)),
    );
    return i === -1 ? Number.MAX_SAFE_INTEGER : i;
  };
  return list
    .map((item, i) => ({ item, i, r: rank(item) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((x) => x.item);
}

function stripList(patch: readonly unknown[], path: string, meta: PatchMeta): unknown[] {
  return patch
    .filter((el) => !(isJsonObject(el) && el['$patch'] !== undefined && Object.keys(el).length === 1))
    .map((el) => (isJsonObject(el) ? mergeMap({}, el, path, meta) : cloneJson(el)))
    .filter((el) => el !== remove);
}

function mergeList(original: unknown, patch: readonly unknown[], path: string, meta: PatchMeta): unknown[] {
  const rule = meta[path];
  const replaceAll = patch.some((el) => isJsonObject(el) && el['$patch'] === 'replace');
  if (rule === undefined || replaceAll || !Array.isArray(original)) return stripList(patch, path, meta);
  const result = [...original];
  const mergeKey = rule.mergeKey;
  if (mergeKey === undefined) {
    for (const el of patch) if (!result.some((x) => jsonEqual(x, el))) result.push(cloneJson(el));
    return result;
  }
  for (const el of patch) {
    if (!isJsonObject(el)) continue;
    const index = result.findIndex((x) => jsonEqual(keyOf(x, mergeKey), el[mergeKey]));
    if (el['$patch'] === 'delete') {
      if (index !== -1) result.splice(index, 1);
      continue;
    }
    const merged = mergeMap(index === -1 ? {} : result[index], el, path, meta);
    if (merged === remove) continue;
    if (index === -1) result.push(merged);
    else result[index] = merged;
  }
  return result;
}

function applyListDirectives(result: JsonObject, patch: JsonObject, path: string, meta: PatchMeta): void {
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$deleteFromPrimitiveList/') && Array.isArray(value)) {
      const field = key.slice('$deleteFromPrimitiveList/'.length);
      const list = result[field];
      if (Array.isArray(list)) result[field] = list.filter((x) => !value.some((v) => jsonEqual(v, x)));
    }
  }
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$setElementOrder/') && Array.isArray(value)) {
      const field = key.slice('$setElementOrder/'.length);
      const list = result[field];
      const rule = meta[path === '' ? field : `${path}.${field}`];
      if (Array.isArray(list)) result[field] = orderList(list, value, rule?.mergeKey);
    }
  }
}

function mergeMap(original: unknown, patch: JsonObject, path: string, meta: PatchMeta): JsonObject | typeof remove {
  const directive = patch['$patch'];
  if (directive === 'delete') return remove;
  if (directive === 'replace') return mergeMap({}, { ...patch, $patch: undefined }, path, meta);
  const result: JsonObject = isJsonObject(original) ? { ...original } : {};
  const retain = patch['$retainKeys'];
  if (Array.isArray(retain)) {
    for (const key of Object.keys(result)) if (!retain.includes(key) && !Object.hasOwn(patch, key)) delete result[key];
  }
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$') || value === undefined) continue;
    const childPath = path === '' ? key : `${path}.${key}`;
    if (value === null) delete result[key];
    else if (Array.isArray(value)) result[key] = mergeList(result[key], value, childPath, meta);
    else if (isJsonObject(value)) {
      const merged = mergeMap(result[key], value, childPath, meta);
      if (merged === remove) delete result[key];
      else result[key] = merged;
    } else result[key] = value;
  }
  applyListDirectives(result, patch, path, meta);
  return result;
}

/**
 * Applies a strategic merge patch (`application/strategic-merge-patch+json`, what `kubectl apply`
 * and `kubectl patch` send) to an object of the given kind; returns a new object.
 */
export function applyStrategicMergePatch(original: JsonObject, patch: unknown, kind: string): JsonObject {
  if (!isJsonObject(patch)) return cloneJson(original);
  const merged = mergeMap(original, patch, '', patchMetaFor(kind));
  return merged === remove ? {} : merged;
}
