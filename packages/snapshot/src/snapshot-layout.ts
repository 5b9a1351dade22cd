import { NARROW_TRIE, type TrieShape } from './hash-trie.ts';

/**
 * How a snapshot is cut into pieces. The layout number is part of the root piece, so two layouts never share a
 * hash; every layout stays readable and encodable, so `replay --verify` reproduces snapshots stored under an older
 * layout exactly (it encodes each with the layout its stored root names).
 */
export interface SnapshotLayout {
  readonly version: number;
  /** The shape of every trie of the snapshot. */
  readonly trie: TrieShape;
  /**
   * Pools and bindings with at most this many members hold them inline, in their own piece (0: never; members
   * always live in a sub-trie). An endpoint change then rewrites one pool piece instead of a member piece, the
   * member-trie path and the pool piece; larger pools keep the sub-trie, so a change stays O(log n) bytes.
   */
  readonly inlineMembers: number;
}

/** Layout 1 (planner 0.1.0): narrow tries (4 children, leaves of 4), members always in a sub-trie. */
export const LAYOUT_1: SnapshotLayout = { version: 1, trie: NARROW_TRIE, inlineMembers: 0 };

/**
 * Layout 2 (planner 0.2.0): tries of 8 children and leaves of 8, members inline up to 32. A one-endpoint change in
 * a 10-endpoint pool writes about 6 pieces instead of 13 (measured at 10k Services; SHA-256's per-call cost is most
 * of a piece's), and stays under 4 KB: the wider inner nodes cost ~370 B a level, with fewer levels.
 */
export const LAYOUT_2: SnapshotLayout = { version: 2, trie: { fanoutBits: 3, leafMax: 8 }, inlineMembers: 32 };

/** The layout new snapshots are written in. */
export const CURRENT_LAYOUT = LAYOUT_2;

const LAYOUTS: ReadonlyMap<number, SnapshotLayout> = new Map([LAYOUT_1, LAYOUT_2].map((l) => [l.version, l]));

/** The layout a root piece's `layout` field names, or undefined when this planner does not know it. */
export function layoutOf(version: unknown): SnapshotLayout | undefined {
  return typeof version === 'number' ? LAYOUTS.get(version) : undefined;
}
