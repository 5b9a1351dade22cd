import { canonicalJson, compareCodeUnits } from '@portolan/desired-state';
import { keyHashOf, NARROW_TRIE, removeOwned, upsertOwned, type TrieNode, type TrieShape } from './hash-trie.ts';
import { sealTrie } from './trie-seal.ts';
import type { PieceSink } from './piece.ts';

/** An item as held: its value, and its trie entry (the same object sits in its leaf; only the owner changes it). */
interface Held<T> {
  value: T;
  itemId: string;
  readonly sortKey: string;
  readonly keyHash: string;
}

/** A keyed set of items stored as a trie (its only owner: updated in place); remembers item ids so unchanged items cost nothing. */
export class ItemTrie<T> {
  root: TrieNode | null = null;
  /**
   * Items by sort key, with their piece id and position hash (hashed once per key, not per change); updated in place.
   * Each record is also the item's entry in its trie leaf, so a changed item is found there by identity: its
   * neighbours in the leaf are not read, and no entry is allocated per change.
   */
  readonly items = new Map<string, Held<T>>();
  dirty = false;
  readonly shape: TrieShape;

  constructor(shape: TrieShape = NARROW_TRIE) {
    this.shape = shape;
  }

  /** Sets one item; `encoded` is its canonical JSON (text, or bytes just taken from the sink's arena) when known. */
  set(sortKey: string, value: T, sink: PieceSink, encoded?: string | Uint8Array): void {
    const text = encoded ?? canonicalJson(value);
    const id = sink.address(text);
    const held = this.items.get(sortKey);
    if (held?.itemId === id) return;
    sink.keep();
    let entry = held;
    if (entry === undefined) {
      entry = { value, itemId: id, sortKey, keyHash: keyHashOf(sortKey) };
      this.items.set(sortKey, entry);
    } else {
      entry.value = value;
      entry.itemId = id;
    }
    this.root = upsertOwned(this.root, entry, this.shape);
    this.dirty = true;
  }

  delete(sortKey: string): void {
    const held = this.items.get(sortKey);
    if (held === undefined) return;
    this.items.delete(sortKey);
    this.root = removeOwned(this.root, sortKey, held.keyHash, this.shape);
    this.dirty = true;
  }

  seal(sink: PieceSink): string | null {
    this.dirty = false;
    return sealTrie(this.root, sink);
  }

  sortedValues(): T[] {
    return [...this.items.entries()].sort((a, b) => compareCodeUnits(a[0], b[0])).map(([, v]) => v.value);
  }
}
