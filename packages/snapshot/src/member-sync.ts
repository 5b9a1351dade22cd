import type { PoolMember } from '@portolan/desired-state';
import { memberSortKey } from './canonical-order.ts';
import type { ByteArena, PieceSink } from './piece.ts';

/** Where a pool's members are held while encoding: a sub-trie of member pieces (ItemTrie) or `InlineMembers`. */
export interface MemberStore {
  readonly items: ReadonlyMap<string, { readonly value: PoolMember }>;
  /** Sets one member; `encoded` is its canonical JSON. */
  set(sortKey: string, value: PoolMember, sink: PieceSink, encoded: string): void;
  delete(sortKey: string): void;
  sortedValues(): PoolMember[];
}

const COMMA = 0x2c;
const utf8 = new TextEncoder();

/** One inline member: its sort key, value and canonical JSON (`bytes` only when that text is not all ASCII). */
interface InlineEntry {
  readonly key: string;
  value: PoolMember;
  text: string;
  bytes: Uint8Array | null;
}

/** The UTF-8 bytes of `text` when it has a non-ASCII character; null when its characters are its bytes. */
function nonAsciiBytes(text: string): Uint8Array | null {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return utf8.encode(text);
  return null;
}

/**
 * Members held inline in their pool's piece (layout 2, small pools): each member's canonical JSON is built once, when
 * it changes, and the pool piece's `members` array is written from it. The text is kept as a string, not as its own
 * UTF-8 buffer: a small typed array per member (100k of them at 10k Services) cost an allocation with a backing store
 * per change and an array-buffer extension that every major GC swept. Entries are kept in sort-key order
 * (an arrival is inserted at its place: pools are small), so writing the piece is one pass.
 */
export class InlineMembers implements MemberStore {
  readonly items = new Map<string, InlineEntry>();
  private readonly sorted: InlineEntry[] = [];

  set(sortKey: string, value: PoolMember, _sink: PieceSink, encoded: string): void {
    const bytes = nonAsciiBytes(encoded);
    const held = this.items.get(sortKey);
    if (held !== undefined) {
      held.value = value;
      held.text = encoded;
      held.bytes = bytes;
      return;
    }
    const entry: InlineEntry = { key: sortKey, value, text: encoded, bytes };
    this.items.set(sortKey, entry);
    let at = this.sorted.length;
    while (at > 0 && this.sorted[at - 1]!.key > sortKey) at--;
    this.sorted.splice(at, 0, entry);
  }

  delete(sortKey: string): void {
    const held = this.items.get(sortKey);
    if (held === undefined) return;
    this.items.delete(sortKey);
    this.sorted.splice(this.sorted.indexOf(held), 1);
  }

  sortedValues(): PoolMember[] {
    return this.sorted.map((e) => e.value);
  }

  /** Writes the pool piece: `before`, the members as a JSON array, `after`; returns its bytes. */
  writePiece(arena: ByteArena, before: Uint8Array, after: Uint8Array): Uint8Array {
    const entries = this.sorted;
    let n = before.length + after.length + 2 + entries.length;
    for (let i = 0; i < entries.length; i++) n += entries[i]!.bytes?.length ?? entries[i]!.text.length;
    arena.reserve(n);
    arena.bytes(before);
    arena.byte(0x5b);
    for (let i = 0; i < entries.length; i++) {
      if (i > 0) arena.byte(COMMA);
      const e = entries[i]!;
      if (e.bytes === null) arena.ascii(e.text);
      else arena.bytes(e.bytes);
    }
    arena.byte(0x5d);
    arena.bytes(after);
    return arena.take();
  }
}

/**
 * What a member store holds: the members last synced, in a strict order by `compareMembers` (which is their sort-key
 * order). Only the list is kept, not its sort keys: a key is rebuilt for the member that leaves or changes, which
 * is cheaper than a keys array kept (and copied by the young-generation collector) per change.
 */
export type SyncedMembers = readonly PoolMember[];

export const NOTHING_SYNCED: SyncedMembers = [];

/** Member identity order: (address, port, cluster). Only used to walk two sorted lists side by side. */
function compareMembers(a: PoolMember, b: PoolMember): number {
  if (a.address !== b.address) return a.address < b.address ? -1 : 1;
  if (a.port !== b.port) return a.port - b.port;
  if (a.cluster !== b.cluster) return a.cluster < b.cluster ? -1 : 1;
  return 0;
}

/** Whether members are strictly ordered by identity with keys that cannot collide (no NUL in address or cluster). */
function walkable(members: readonly PoolMember[]): boolean {
  for (let i = 0; i < members.length; i++) {
    const m = members[i]!;
    if (m.address.includes('\u0000') || m.cluster.includes('\u0000')) return false;
    if (i > 0 && compareMembers(members[i - 1]!, m) >= 0) return false;
  }
  return true;
}

/**
 * Brings a member trie to `members`. Usually both lists are sorted by identity, so one side-by-side walk finds the
 * members that left, arrived or changed; only those are keyed and encoded. Anything else (unsorted input, duplicate
 * identities) takes the general path, keyed by `memberSortKey`. Returns what the store now holds, or null when it
 * must not be walked next time.
 */
export function syncMembers(
  trie: MemberStore,
  members: readonly PoolMember[],
  sink: PieceSink,
  synced: SyncedMembers | null,
): SyncedMembers | null {
  if (synced !== null && synced.length === trie.items.size && walkable(members)) {
    const prev = synced; // what the store holds, in identity order
    let i = 0;
    let j = 0;
    while (i < prev.length || j < members.length) {
      const c = i >= prev.length ? 1 : j >= members.length ? -1 : compareMembers(prev[i]!, members[j]!);
      if (c < 0) {
        trie.delete(memberSortKey(prev[i++]!));
        continue;
      }
      const m = members[j++]!;
      if (c > 0) trie.set(memberSortKey(m), m, sink, encodeMember(m));
      else {
        const held = prev[i++]!;
        if (held !== m && (held.state !== m.state || held.weight !== m.weight || held.node !== m.node))
          trie.set(memberSortKey(m), m, sink, encodeMember(m));
      }
    }
    return members;
  }
  const keys = members.map(memberSortKey);
  // Counted as a set: a list with duplicates can have as many entries as the trie and still leave some of its
  // members out (found by the encoder's property test).
  const wanted = new Set(keys);
  if (wanted.size !== trie.items.size || !keys.every((k) => trie.items.has(k))) {
    for (const key of [...trie.items.keys()]) if (!wanted.has(key)) trie.delete(key);
  }
  for (let i = 0; i < members.length; i++) {
    const key = keys[i]!;
    const m = members[i]!;
    const held = trie.items.get(key)?.value;
    // Most members of a changed pool are unchanged: compare fields before paying for encoding and hashing.
    if (held !== undefined && held.state === m.state && held.weight === m.weight && held.node === m.node) continue;
    trie.set(key, m, sink, encodeMember(m));
  }
  return walkable(members) ? members : null;
}

/** canonicalJson of a PoolMember, written out (members are the hottest items); equal to canonicalJson(m). */
function encodeMember(m: PoolMember): string {
  return `{"address":${JSON.stringify(m.address)},"cluster":${JSON.stringify(m.cluster)},"node":${JSON.stringify(m.node)},"port":${m.port},"state":"${m.state}","weight":${m.weight}}`;
}
