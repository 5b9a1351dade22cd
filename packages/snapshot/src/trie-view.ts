import { compareCodeUnits } from '@portolan/desired-state';
import { SnapshotCorruptError } from './errors.ts';

/** Parses, verifies and memoises pieces for one read; records the ids it was asked for but could not find. */
export interface PieceSource {
  /** The piece's parsed JSON, or undefined when the store has not provided it yet (the id is then recorded). */
  get(id: string): unknown;
}

/** Decodes one item piece of a trie; undefined while pieces it needs are missing. The thunk runs at commit. */
export type ItemDecoder<T> = (itemId: string, pieces: PieceSource) => (() => T) | undefined;

type Node = { readonly l: readonly string[] } | { readonly c: readonly (string | null)[] };

interface Delta {
  readonly addNodes: Map<string, Node>;
  readonly dropNodes: string[];
  readonly addItems: string[];
  readonly dropItems: string[];
}

/** Above this many changed items a collection is re-sorted instead of patched by binary search. */
const PATCH_LIMIT = 64;

/**
 * One trie-backed collection of a snapshot (pools, a pool's members, a virtual service's routes …), decoded
 * incrementally: moving to a new trie root walks only the nodes whose ids differ from the current ones (content
 * addressing makes an equal id an equal subtree), decodes only the items that are new, and patches the sorted
 * array in place of re-sorting. Unchanged items keep their object identity from one snapshot to the next, so
 * consumers can skip them by reference. `prepare` never mutates; the returned thunk commits.
 */
export class TrieView<T> {
  private root: string | null = null;
  private readonly nodes = new Map<string, Node>();
  private readonly items = new Map<string, T>();
  private sorted: readonly T[] = [];
  private readonly keyOf: (item: T) => string;

  constructor(keyOf: (item: T) => string) {
    this.keyOf = keyOf;
  }

  /** The items last committed, sorted. */
  get current(): readonly T[] {
    return this.sorted;
  }

  /**
   * Prepares the move to `newRoot`: undefined while pieces are missing (they are recorded by `pieces`), else a
   * thunk that commits and returns the new sorted items. `onDrop` sees each item that leaves, at commit.
   */
  prepare(
    newRoot: string | null,
    pieces: PieceSource,
    decode: ItemDecoder<T>,
    onDrop?: (item: T) => void,
  ): (() => readonly T[]) | undefined {
    if (newRoot === this.root) return () => this.sorted;
    const delta: Delta = { addNodes: new Map(), dropNodes: [], addItems: [], dropItems: [] };
    let complete = this.walk(this.root, newRoot, pieces, delta);
    const dropped = new Set(delta.dropItems);
    const makers: [string, () => T][] = [];
    for (const id of delta.addItems) {
      if (dropped.delete(id)) continue;
      const make = decode(id, pieces);
      if (make === undefined) complete = false;
      else makers.push([id, make]);
    }
    if (!complete) return undefined;
    return () => {
      for (const id of delta.dropNodes) this.nodes.delete(id);
      for (const [id, node] of delta.addNodes) this.nodes.set(id, node);
      const gone: T[] = [];
      for (const id of dropped) {
        const item = this.items.get(id);
        if (item === undefined) continue;
        this.items.delete(id);
        gone.push(item);
        onDrop?.(item);
      }
      const added = makers.map(([id, make]) => {
        const item = make();
        this.items.set(id, item);
        return item;
      });
      this.sorted =
        gone.length + added.length > PATCH_LIMIT ? this.resorted() : patchSorted(this.sorted, gone, added, this.keyOf);
      this.root = newRoot;
      return this.sorted;
    };
  }

  private resorted(): T[] {
    return [...this.items.values()]
      .map((item) => ({ item, k: this.keyOf(item) }))
      .sort((a, b) => compareCodeUnits(a.k, b.k))
      .map((x) => x.item);
  }

  /** Compares the subtree at one position in the current and the new trie; false when a piece is missing. */
  private walk(oldId: string | null, newId: string | null, pieces: PieceSource, delta: Delta): boolean {
    if (oldId === newId) return true;
    const oldNode = oldId === null ? null : (this.nodes.get(oldId) ?? null);
    const newNode = newId === null ? null : nodeOf(newId, pieces);
    if (newNode === undefined) return false;
    if (oldId !== null) delta.dropNodes.push(oldId);
    if (newId !== null && newNode !== null) delta.addNodes.set(newId, newNode);
    if (oldNode !== null && newNode !== null && 'c' in oldNode && 'c' in newNode) {
      let complete = true;
      for (let i = 0; i < Math.max(oldNode.c.length, newNode.c.length); i++)
        complete = this.walk(oldNode.c[i] ?? null, newNode.c[i] ?? null, pieces, delta) && complete;
      return complete;
    }
    // A leaf became an inner node or the reverse (or a side is empty): compare the item sets of the two subtrees.
    const before: string[] = [];
    if (oldNode !== null) this.collectCurrent(oldNode, before, delta);
    const after: string[] = [];
    const complete = newNode === null || collectNew(newNode, pieces, after, delta);
    const had = new Set(before);
    const has = new Set(after);
    for (const id of after) if (!had.has(id)) delta.addItems.push(id);
    for (const id of before) if (!has.has(id)) delta.dropItems.push(id);
    return complete;
  }

  private collectCurrent(node: Node, out: string[], delta: Delta): void {
    if ('l' in node) {
      out.push(...node.l);
      return;
    }
    for (const child of node.c) {
      if (child === null) continue;
      const sub = this.nodes.get(child);
      delta.dropNodes.push(child);
      if (sub !== undefined) this.collectCurrent(sub, out, delta);
    }
  }
}

function collectNew(node: Node, pieces: PieceSource, out: string[], delta: Delta): boolean {
  if ('l' in node) {
    out.push(...node.l);
    return true;
  }
  let complete = true;
  for (const child of node.c) {
    if (child === null) continue;
    const sub = nodeOf(child, pieces);
    if (sub === undefined) {
      complete = false;
      continue;
    }
    delta.addNodes.set(child, sub);
    complete = collectNew(sub, pieces, out, delta) && complete;
  }
  return complete;
}

function nodeOf(id: string, pieces: PieceSource): Node | undefined {
  const raw = pieces.get(id) as Partial<{ l: unknown; c: unknown }> | undefined;
  if (raw === undefined) return undefined;
  if (Array.isArray(raw.l) && raw.l.every((x) => typeof x === 'string')) return { l: raw.l as string[] };
  if (Array.isArray(raw.c) && raw.c.every((x) => typeof x === 'string' || x === null))
    return { c: raw.c as (string | null)[] };
  throw new SnapshotCorruptError(id, 'not a trie node');
}

/** The sorted array with `gone` removed and `added` inserted, by binary search on the sort key. */
function patchSorted<T>(
  sorted: readonly T[],
  gone: readonly T[],
  added: readonly T[],
  keyOf: (item: T) => string,
): T[] {
  const next = sorted.slice();
  for (const item of gone) {
    const at = lowerBound(next, keyOf(item), keyOf);
    const found = next[at] === item ? at : next.indexOf(item);
    if (found >= 0) next.splice(found, 1);
  }
  for (const item of added) next.splice(lowerBound(next, keyOf(item), keyOf), 0, item);
  return next;
}

function lowerBound<T>(items: readonly T[], key: string, keyOf: (item: T) => string): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compareCodeUnits(keyOf(items[mid]!), key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
