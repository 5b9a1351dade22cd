import { sha256Text } from '@portolan/desired-state';

/**
 * A canonical, persistent hash trie of (sortKey → item piece id), stored as content-addressed pieces. Its shape is
 * a pure function of the entry set and the trie's `TrieShape` — a node holding ≤ leafMax entries is a leaf,
 * otherwise an inner node with 2^fanoutBits children chosen by the entry's key hash — so building from scratch and
 * updating incrementally give byte-identical pieces.
 */

/** The parameters of a trie's shape; part of the snapshot layout (see snapshot-layout.ts). */
export interface TrieShape {
  /** Key-hash bits consumed per level: 2^fanoutBits children per inner node. */
  readonly fanoutBits: number;
  /** Most entries a leaf holds. */
  readonly leafMax: number;
}

/** Layout 1's shape: four children, leaves of four (small pieces, deep paths). */
export const NARROW_TRIE: TrieShape = { fanoutBits: 2, leafMax: 4 };

/** Bits in a key hash (hex SHA-256); a trie never goes deeper than they reach. */
const KEY_BITS = 256;

/** One entry: the item's sort key (unique within the tree), the hash that positions it, and its piece id. */
export interface TrieEntry {
  readonly sortKey: string;
  readonly keyHash: string;
  readonly itemId: string;
}

/**
 * A trie node; `id` is null until the node is sealed (hashed and emitted). A node of an owned trie (`upsertOwned`,
 * `removeOwned`) also keeps its last piece's bytes and which one slot changed since, so a change that only replaces
 * one id re-seals it by patching 43 bytes instead of re-reading every sibling (`sealTrie`).
 */
export type TrieNode = TrieLeaf | TrieInner;
interface TrieLeaf {
  readonly leaf: true;
  readonly entries: readonly TrieEntry[];
  readonly size: number;
  id: string | null;
  /** Since the last seal: CLEAN, the one entry index replaced in place, DIRTY, or PERSISTENT (never patched). */
  slot: number;
  /** The last piece's bytes (owned nodes once sealed), else null. */
  bytes: Buffer | null;
}
interface TrieInner {
  readonly leaf: false;
  readonly children: readonly (TrieNode | null)[];
  readonly size: number;
  id: string | null;
  /** Since the last seal: CLEAN, the one child index whose id changed (non-null before and after), DIRTY, or PERSISTENT. */
  slot: number;
  bytes: Buffer | null;
}

/** `slot` values besides an index: nothing changed since the last seal; several or structural changes; a persistent node. */
export const CLEAN = -1;
const DIRTY = -2;
export const PERSISTENT = -3;

function leafNode(entries: readonly TrieEntry[], size: number, slot: number): TrieLeaf {
  return { leaf: true, entries, size, id: null, slot, bytes: null };
}

function innerNode(children: readonly (TrieNode | null)[], size: number, slot: number): TrieInner {
  return { leaf: false, children, size, id: null, slot, bytes: null };
}

/** Records a change to a node before it is unsealed: one slot replaced in place (`at` ≥ 0), or DIRTY. */
function touch(node: TrieNode, at: number): void {
  if (node.slot === PERSISTENT) return;
  node.slot = node.id !== null && node.slot === CLEAN ? at : node.slot === at ? at : DIRTY;
}

/** The piece formats: a leaf lists item ids in sort-key order; an inner node lists 2^fanoutBits child ids or null. */
export type TriePiece = { readonly l: readonly string[] } | { readonly c: readonly (string | null)[] };

/** The position hash of a sort key (hex SHA-256: uniform whatever the keys look like). */
export function keyHashOf(sortKey: string): string {
  return sha256Text(sortKey);
}

function hexValue(c: number): number {
  return c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : 0;
}

/** The child index of a key hash at a depth: bits [depth·fanoutBits, (depth+1)·fanoutBits) of the hash, MSB first. */
function digit(keyHash: string, depth: number, shape: TrieShape): number {
  const bits = shape.fanoutBits;
  if (bits === 2) {
    const nibble = hexValue(keyHash.charCodeAt(depth >> 1));
    return (depth & 1) === 0 ? nibble >> 2 : nibble & 3;
  }
  let v = 0;
  for (let b = depth * bits, end = b + bits; b < end; b++)
    v = (v << 1) | ((hexValue(keyHash.charCodeAt(b >> 2)) >> (3 - (b & 3))) & 1);
  return v;
}

/** Whether a node at this depth may still split (the key hash has bits left for another level). */
function canSplit(depth: number, shape: TrieShape): boolean {
  return (depth + 1) * shape.fanoutBits <= KEY_BITS;
}

function compareKeys(a: TrieEntry, b: TrieEntry): number {
  return a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0;
}

/** Builds the canonical node for a set of entries at a depth (unsealed). */
function build(entries: TrieEntry[], depth: number, shape: TrieShape, slot = PERSISTENT): TrieNode | null {
  if (entries.length === 0) return null;
  if (entries.length <= shape.leafMax || !canSplit(depth, shape))
    return leafNode(entries.slice().sort(compareKeys), entries.length, slot);
  const buckets: TrieEntry[][] = Array.from({ length: 1 << shape.fanoutBits }, () => []);
  for (const e of entries) buckets[digit(e.keyHash, depth, shape)]!.push(e);
  return innerNode(
    buckets.map((b) => build(b, depth + 1, shape, slot)),
    entries.length,
    slot,
  );
}

function collect(node: TrieNode | null, out: TrieEntry[]): void {
  if (node === null) return;
  if (node.leaf) out.push(...node.entries);
  else for (const c of node.children) collect(c, out);
}

/** Builds a trie from scratch (unsealed; call `sealTrie`). */
export function buildTrie(entries: readonly TrieEntry[], shape: TrieShape = NARROW_TRIE): TrieNode | null {
  return build(entries.slice(), 0, shape);
}

/** Inserts or replaces one entry; returns the new root (the old version is untouched). */
export function upsertTrie(
  node: TrieNode | null,
  entry: TrieEntry,
  shape: TrieShape = NARROW_TRIE,
  depth = 0,
): TrieNode {
  if (node === null) return leafNode([entry], 1, PERSISTENT);
  if (node.leaf) {
    let i = node.entries.length - 1;
    while (i >= 0 && node.entries[i]!.sortKey !== entry.sortKey) i--;
    if (i >= 0) {
      if (node.entries[i]!.itemId === entry.itemId) return node;
      const entries = node.entries.slice();
      entries[i] = entry;
      return leafNode(entries, node.size, PERSISTENT);
    }
    if (node.entries.length >= shape.leafMax && canSplit(depth, shape))
      return build([...node.entries, entry], depth, shape)!;
    // Still a leaf: copy with the entry inserted at its sorted place (no sort).
    let at = 0;
    while (at < node.entries.length && node.entries[at]!.sortKey < entry.sortKey) at++;
    const entries = node.entries.slice(0, at);
    entries.push(entry);
    for (let k = at; k < node.entries.length; k++) entries.push(node.entries[k]!);
    return leafNode(entries, entries.length, PERSISTENT);
  }
  const d = digit(entry.keyHash, depth, shape);
  const before = node.children[d] ?? null;
  const after = upsertTrie(before, entry, shape, depth + 1);
  if (after === before) return node;
  const children = node.children.slice();
  children[d] = after;
  return innerNode(children, node.size - (before?.size ?? 0) + after.size, PERSISTENT);
}

/** Removes the entry with this sort key (no-op when absent); returns the new root. */
export function removeFromTrie(
  node: TrieNode | null,
  sortKey: string,
  keyHash: string,
  shape: TrieShape = NARROW_TRIE,
  depth = 0,
): TrieNode | null {
  if (node === null) return null;
  if (node.leaf) {
    let at = 0;
    while (at < node.entries.length && node.entries[at]!.sortKey !== sortKey) at++;
    if (at === node.entries.length) return node;
    const entries = node.entries.slice(0, at);
    for (let k = at + 1; k < node.entries.length; k++) entries.push(node.entries[k]!);
    return entries.length === 0 ? null : leafNode(entries, entries.length, PERSISTENT);
  }
  const d = digit(keyHash, depth, shape);
  const before = node.children[d] ?? null;
  const after = removeFromTrie(before, sortKey, keyHash, shape, depth + 1);
  if (after === before) return node;
  const size = node.size - (before?.size ?? 0) + (after?.size ?? 0);
  if (size <= shape.leafMax) {
    const all: TrieEntry[] = [];
    const children = node.children.slice();
    children[d] = after;
    for (const c of children) collect(c, all);
    return leafNode(all.sort(compareKeys), size, PERSISTENT);
  }
  const children = node.children.slice();
  children[d] = after;
  return innerNode(children, size, PERSISTENT);
}

type OwnedLeaf = {
  leaf: true;
  entries: TrieEntry[];
  size: number;
  id: string | null;
  slot: number;
  bytes: Buffer | null;
};
type OwnedInner = {
  leaf: false;
  children: (TrieNode | null)[];
  size: number;
  id: string | null;
  slot: number;
  bytes: Buffer | null;
};

/**
 * `upsertTrie` for a trie whose nodes have one owner (an ItemTrie: no one keeps an older version): the changed path
 * is updated in place and unsealed (id null) instead of copied, so a change allocates nothing but split leaves. The
 * shape, and so every piece, is the same as the persistent update gives. `entry` may be the very object already in
 * the trie with its `itemId` changed by the owner: its path is then unsealed and re-hashed.
 */
export function upsertOwned(
  node: TrieNode | null,
  entry: TrieEntry,
  shape: TrieShape = NARROW_TRIE,
  depth = 0,
): TrieNode {
  if (node === null) return leafNode([entry], 1, DIRTY);
  if (node.leaf) {
    const leaf = node as OwnedLeaf;
    const entries = leaf.entries;
    // An owner that keeps its entry objects and changes their item id in place passes the same object: found by
    // identity, without reading the leaf's other entries or their keys.
    let i = entries.indexOf(entry);
    if (i < 0) {
      i = entries.length - 1;
      while (i >= 0 && entries[i]!.sortKey !== entry.sortKey) i--;
    }
    if (i >= 0) {
      if (entries[i] !== entry && entries[i]!.itemId === entry.itemId) return node;
      entries[i] = entry;
      touch(leaf, i);
    } else {
      if (entries.length >= shape.leafMax && canSplit(depth, shape))
        return build([...entries, entry], depth, shape, DIRTY)!;
      let at = 0;
      while (at < entries.length && entries[at]!.sortKey < entry.sortKey) at++;
      entries.splice(at, 0, entry);
      leaf.size = entries.length;
      touch(leaf, DIRTY);
    }
    leaf.id = null;
    return node;
  }
  const inner = node as OwnedInner;
  const d = digit(entry.keyHash, depth, shape);
  const before = inner.children[d] ?? null;
  const sizeBefore = before?.size ?? 0;
  const after = upsertOwned(before, entry, shape, depth + 1);
  // Unchanged below: the child is the same node and still sealed (a changed child is unsealed, or new).
  if (after === before && after.id !== null) return node;
  inner.children[d] = after;
  inner.size += after.size - sizeBefore;
  touch(inner, before === null ? DIRTY : d);
  inner.id = null;
  return node;
}

/** `removeFromTrie` for a trie with one owner (see `upsertOwned`): the path is updated in place. */
export function removeOwned(
  node: TrieNode | null,
  sortKey: string,
  keyHash: string,
  shape: TrieShape = NARROW_TRIE,
  depth = 0,
): TrieNode | null {
  if (node === null) return null;
  if (node.leaf) {
    const leaf = node as OwnedLeaf;
    const at = leaf.entries.findIndex((e) => e.sortKey === sortKey);
    if (at < 0) return node;
    if (leaf.entries.length === 1) return null;
    leaf.entries.splice(at, 1);
    leaf.size = leaf.entries.length;
    touch(leaf, DIRTY);
    leaf.id = null;
    return node;
  }
  const inner = node as OwnedInner;
  const d = digit(keyHash, depth, shape);
  const before = inner.children[d] ?? null;
  const sizeBefore = before?.size ?? 0;
  const after = removeOwned(before, sortKey, keyHash, shape, depth + 1);
  const sizeAfter = after?.size ?? 0;
  if (after === before && sizeAfter === sizeBefore) return node;
  const size = inner.size - sizeBefore + sizeAfter;
  inner.children[d] = after;
  if (size <= shape.leafMax) {
    const all: TrieEntry[] = [];
    for (const c of inner.children) collect(c, all);
    return leafNode(all.sort(compareKeys), size, DIRTY);
  }
  inner.size = size;
  touch(inner, before === null || after === null ? DIRTY : d);
  inner.id = null;
  return node;
}

/** Every entry of a trie, in sort-key order. */
export function trieEntries(node: TrieNode | null): TrieEntry[] {
  const out: TrieEntry[] = [];
  collect(node, out);
  return out.sort(compareKeys);
}

/** Item ids reachable from a trie piece, depth first; `read` returns a piece's parsed JSON. */
export function readTrieItemIds(rootId: string | null, read: (id: string) => unknown): string[] {
  const out: string[] = [];
  const walk = (id: string): void => {
    const piece = read(id) as Partial<{ l: unknown; c: unknown }>;
    if (Array.isArray(piece.l)) {
      for (const item of piece.l) out.push(String(item));
    } else if (Array.isArray(piece.c)) {
      for (const child of piece.c) if (typeof child === 'string') walk(child);
    } else {
      throw new TypeError(`piece ${id} is not a trie node`);
    }
  };
  if (rootId !== null) walk(rootId);
  return out;
}
