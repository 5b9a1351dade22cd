import { sha256Text } from './content-hash.ts';
import { ValueTreeCorruptError } from './errors.ts';

// Reading a value stored by `ValueTreeEncoder` (value-tree.ts): the formats are described there.

/** Looks a piece's text up by id (undefined: not stored). */
export type TreeLookup = (id: string) => string | undefined;

/** The piece ids a tree piece refers to (for stores that fetch level by level); none for a plain value. */
export function treeReferences(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\{"\$ref":"([A-Za-z0-9_-]+)"\}|\{"\$cat":\[((?:"[A-Za-z0-9_-]+",?)*)\]\}/g)) {
    if (m[1] !== undefined) out.push(m[1]);
    else for (const id of (m[2] ?? '').split(',')) if (id !== '') out.push(id.slice(1, -1));
  }
  return out;
}

/** Decodes a value stored by `ValueTreeEncoder` (or any plain JSON piece). Throws when a piece is missing or corrupt. */
export function decodeValueTree(rootText: string, lookup: TreeLookup): unknown {
  const root = JSON.parse(rootText) as unknown;
  if (!isTree(root)) return root;
  const piece = (id: string): unknown => {
    const text = lookup(id);
    if (text === undefined) throw new ValueTreeCorruptError(id, 'is missing');
    if (sha256Text(text, 'base64url') !== id) throw new ValueTreeCorruptError(id, 'does not match its address');
    return JSON.parse(text) as unknown;
  };
  const expand = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object') return v;
    if (Array.isArray(v)) return v.map(expand);
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o);
    if (keys.length === 1) {
      if (typeof o['$ref'] === 'string') return expand(piece(o['$ref']));
      if (Array.isArray(o['$cat'])) return concatenated(o['$cat'] as string[]);
      if (o['$obj'] !== undefined)
        return Object.fromEntries(Object.entries(o['$obj'] as object).map(([k, x]) => [k, expand(x)]));
    }
    return Object.fromEntries(keys.map((k) => [k, expand(o[k])]));
  };
  function concatenated(ids: readonly string[]): unknown {
    const parts = ids.map((id) => {
      const p = piece(id);
      if (typeof p === 'string') return p;
      if (Array.isArray(p)) return p.map(expand);
      const inner = (p as Record<string, unknown>)['$cat'];
      if (!Array.isArray(inner)) throw new ValueTreeCorruptError(id, 'is not a chunk');
      return concatenated(inner as string[]);
    });
    return typeof parts[0] === 'string' ? parts.join('') : (parts as unknown[][]).flat();
  }
  return expand(root.value);
}

function isTree(v: unknown): v is { $tree: 1; value: unknown } {
  return (
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    (v as Record<string, unknown>)['$tree'] === 1 &&
    'value' in v &&
    Object.keys(v).length === 2
  );
}
