import { cloneJson, isJsonObject, jsonEqual, type JsonObject, type PatchResult } from './json-value.ts';

type Container = JsonObject | unknown[];

function parsePointer(pointer: string): string[] | null {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return null;
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function resolveParent(doc: unknown, tokens: readonly string[]): { parent: Container; last: string } | string {
  let current: unknown = doc;
  for (const token of tokens.slice(0, -1)) {
    if (Array.isArray(current)) current = current[Number(token)];
    else if (isJsonObject(current)) current = current[token];
    else return `path not found at "${token}"`;
    if (current === undefined) return `path not found at "${token}"`;
  }
  if (!Array.isArray(current) && !isJsonObject(current)) return 'parent is not a container';
  return { parent: current, last: tokens[tokens.length - 1] ?? '' };
}

function arrayIndex(arr: readonly unknown[], token: string, forInsert: boolean): number | null {
  if (forInsert && token === '-') return arr.length;
  if (!/^(0|[1-9]\d*)$/.test(token)) return null;
  const index = Number(token);
  return index <= (forInsert ? arr.length : arr.length - 1) ? index : null;
}

function getAt(doc: unknown, tokens: readonly string[]): { found: boolean; value: unknown } {
  let current: unknown = doc;
  for (const token of tokens) {
    if (Array.isArray(current)) {
      const i = arrayIndex(current, token, false);
      if (i === null) return { found: false, value: undefined };
      current = current[i];
    } else if (isJsonObject(current) && Object.hasOwn(current, token)) current = current[token];
    else return { found: false, value: undefined };
  }
  return { found: true, value: current };
}

function removeAt(doc: unknown, tokens: readonly string[]): string | null {
  const target = resolveParent(doc, tokens);
  if (typeof target === 'string') return target;
  const { parent, last } = target;
  if (Array.isArray(parent)) {
    const i = arrayIndex(parent, last, false);
    if (i === null) return `index "${last}" out of range`;
    parent.splice(i, 1);
  } else {
    if (!Object.hasOwn(parent, last)) return `unable to remove nonexistent key: ${last}`;
    delete parent[last];
  }
  return null;
}

function addAt(doc: unknown, tokens: readonly string[], value: unknown, replace: boolean): string | null {
  const target = resolveParent(doc, tokens);
  if (typeof target === 'string') return target;
  const { parent, last } = target;
  if (Array.isArray(parent)) {
    const i = arrayIndex(parent, last, !replace);
    if (i === null) return `index "${last}" out of range`;
    parent.splice(i, replace ? 1 : 0, cloneJson(value));
  } else {
    if (replace && !Object.hasOwn(parent, last)) return `replace operation does not apply: doc is missing key: ${last}`;
    parent[last] = cloneJson(value);
  }
  return null;
}

interface Operation {
  op: string;
  path: string;
  from?: string;
  value?: unknown;
}

function applyOperation(doc: JsonObject, op: Operation): string | null {
  const path = parsePointer(op.path);
  if (path === null || path.length === 0) return `invalid path "${op.path}"`;
  switch (op.op) {
    case 'add':
      return addAt(doc, path, op.value, false);
    case 'remove':
      return removeAt(doc, path);
    case 'replace':
      return addAt(doc, path, op.value, true);
    case 'test':
      return jsonEqual(getAt(doc, path).value, op.value) ? null : `testing value ${op.path} failed`;
    case 'move':
    case 'copy': {
      const from = parsePointer(op.from ?? '');
      if (from === null) return `invalid from "${op.from ?? ''}"`;
      const source = getAt(doc, from);
      if (!source.found) return `source "${op.from ?? ''}" not found`;
      if (op.op === 'move') {
        const removed = removeAt(doc, from);
        if (removed !== null) return removed;
      }
      return addAt(doc, path, source.value, false);
    }
    default:
      return `Unexpected kind: ${op.op}`;
  }
}

/** Applies an RFC 6902 JSON patch (`application/json-patch+json`) atomically; returns a new object. */
export function applyJsonPatch(original: JsonObject, patch: unknown): PatchResult {
  if (!Array.isArray(patch)) return { ok: false, message: 'json patch must be an array of operations' };
  const doc = cloneJson(original);
  for (const raw of patch) {
    if (!isJsonObject(raw) || typeof raw['op'] !== 'string' || typeof raw['path'] !== 'string') {
      return { ok: false, message: 'json patch operation must have "op" and "path"' };
    }
    const error = applyOperation(doc, raw as unknown as Operation);
    if (error !== null) return { ok: false, message: error };
  }
  return { ok: true, value: doc };
}
