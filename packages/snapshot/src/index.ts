// @portolan/snapshot — the snapshot format: what the planner writes, the applier reads and the audit replays.
// A snapshot is a tree of content-addressed pieces (hash tries of virtual services, pools and certificates)
// whose root id is the snapshot's identity; canonical order makes that identity independent of input order.
export * from './canonical-order.ts';
export * from './encoded-snapshot.ts';
export * from './errors.ts';
export {
  NARROW_TRIE,
  buildTrie,
  keyHashOf,
  readTrieItemIds,
  removeFromTrie,
  removeOwned,
  trieEntries,
  upsertOwned,
  upsertTrie,
  type TrieEntry,
  type TrieNode,
  type TriePiece,
  type TrieShape,
} from './hash-trie.ts';
export * from './item-trie.ts';
export * from './member-sync.ts';
export * from './piece.ts';
export * from './snapshot-codec.ts';
export { SNAPSHOT_LAYOUT, SnapshotEncoder, type EncoderOptions } from './snapshot-encoder.ts';
export { encodeSnapshot } from './encode-snapshot.ts';
export * from './snapshot-layout.ts';
export * from './snapshot-reader.ts';
export * from './trie-seal.ts';
export * from './trie-view.ts';
