// Sealing a hash trie: hashing its unsealed nodes bottom-up into content-addressed pieces, patching a node in
// place when only one id changed since its last seal.
import { CLEAN, PERSISTENT, type TrieNode } from './hash-trie.ts';
import type { PieceSink } from './piece.ts';

const QUOTE = 0x22;
const COMMA = 0x2c;

/** Length of a piece id (unpadded base64url SHA-256), the unit a patch replaces. */
const ID_LENGTH = 43;

/** Hashes every unsealed node (bottom-up), emitting its piece; returns the root id (null for an empty trie). */
export function sealTrie(node: TrieNode | null, sink: PieceSink): string | null {
  if (node === null) return null;
  if (node.id !== null) return node.id;
  if (node.slot >= 0 && node.bytes !== null) {
    const id = patchSeal(node, node.bytes, node.slot, sink);
    if (id !== null) return id;
  }
  // Ids are base64url (ASCII, nothing JSON escapes), so these bytes are exactly canonicalJson of the TriePiece,
  // written straight into the arena (no string building, no UTF-8 encoding): this runs for every node on a changed
  // path. Children are sealed first: the arena writes one piece at a time.
  const arena = sink.arena;
  if (node.leaf) {
    const entries = node.entries;
    let n = 8;
    for (let i = 0; i < entries.length; i++) n += entries[i]!.itemId.length + 3;
    arena.reserve(n);
    arena.ascii('{"l":[');
    for (let i = 0; i < entries.length; i++) {
      if (i > 0) arena.byte(COMMA);
      arena.byte(QUOTE);
      arena.ascii(entries[i]!.itemId);
      arena.byte(QUOTE);
    }
  } else {
    const children = node.children;
    let n = 8;
    for (let i = 0; i < children.length; i++) {
      const c = children[i] ?? null;
      n += c === null ? 5 : sealTrie(c, sink)!.length + 3;
    }
    arena.reserve(n);
    arena.ascii('{"c":[');
    for (let i = 0; i < children.length; i++) {
      if (i > 0) arena.byte(COMMA);
      const c = children[i] ?? null;
      if (c === null) arena.ascii('null');
      else {
        arena.byte(QUOTE);
        arena.ascii(c.id!);
        arena.byte(QUOTE);
      }
    }
  }
  arena.ascii(']}');
  const bytes = arena.take();
  node.id = sink.addBytes(bytes);
  if (node.slot !== PERSISTENT) {
    // Kept in the node's own buffer, not as an arena view (a long-lived view would keep its whole chunk alive).
    if (node.bytes !== null && node.bytes.length === bytes.length) node.bytes.set(bytes);
    else node.bytes = Buffer.from(bytes);
    node.slot = CLEAN;
  }
  return node.id;
}

/**
 * Re-seals a node whose only change since its last seal is one id in place (slot `at`): its kept bytes with that
 * id's 43 bytes overwritten are exactly the full write's, without reading any sibling. Returns null (and changes
 * nothing) when an id is not of the usual length, so the caller writes the piece in full.
 */
function patchSeal(node: TrieNode, kept: Buffer, at: number, sink: PieceSink): string | null {
  let id: string;
  // Offset of the slot's opening quote: past '{"l":[' or '{"c":[', then every earlier slot and its comma.
  let offset = 6;
  if (node.leaf) {
    id = node.entries[at]!.itemId;
    offset += at * (ID_LENGTH + 3);
  } else {
    const children = node.children;
    id = sealTrie(children[at]!, sink)!;
    for (let i = 0; i < at; i++) offset += (children[i] ?? null) === null ? 5 : ID_LENGTH + 3;
  }
  if (id.length !== ID_LENGTH || kept[offset] !== QUOTE || kept[offset + ID_LENGTH + 1] !== QUOTE) return null;
  kept.write(id, offset + 1, 'latin1');
  const arena = sink.arena;
  arena.reserve(kept.length);
  arena.bytes(kept);
  node.id = sink.addBytes(arena.take());
  node.slot = CLEAN;
  return node.id;
}
