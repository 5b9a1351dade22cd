// The encoder's per-item state and the root piece's fixed text: the parts of SnapshotEncoder that are data, not steps.
import type { DriverKind, ObjectRef, PoolMember, Route, ServiceBinding, VirtualService } from '@portolan/desired-state';
import type { PoolHeader } from './encoded-snapshot.ts';
import type { ItemTrie } from './item-trie.ts';
import type { InlineMembers, SyncedMembers } from './member-sync.ts';
import type { ByteArena } from './piece.ts';
import type { SnapshotLayout } from './snapshot-layout.ts';

/** A VS without its three lists, which live in sub-tries. */
export type VsHeader = Omit<VirtualService, 'owners' | 'certificates' | 'routes'>;

export interface VsState {
  header: VsHeader;
  /** Owners in creation order, stored as (owner, predecessor) pairs: an ordered list whose pieces are content-addressed. */
  owners: ObjectRef[];
  readonly ownerTrie: ItemTrie<{ r: ObjectRef; p: string | null }>;
  defaultCertificate: string | null;
  readonly certTrie: ItemTrie<string>;
  readonly routeTrie: ItemTrie<Route>;
}

/** A pool's or binding's members: a sub-trie, or inline in its piece (small pools, layout 2). */
export type Members = ItemTrie<PoolMember> | InlineMembers;

export interface PoolState {
  header: PoolHeader;
  members: Members;
  /** The members the trie holds, for the next sync's side-by-side walk (null: take the general path). */
  synced: SyncedMembers | null;
  /** The pool piece's canonical UTF-8 bytes around the members id (keys sort as customization, members, monitor, ...). */
  text: { readonly before: Uint8Array; readonly after: Uint8Array } | null;
}

export interface BindingState {
  header: Omit<ServiceBinding, 'members'>;
  members: Members;
  synced: SyncedMembers | null;
}

const utf8 = new TextEncoder();

/**
 * The root piece's fixed text around its five trie ids, as UTF-8 bytes: canonicalJson of {appliance, bindings,
 * certificates, conditions, driver, layout, pools, virtualServices}, written by hand because the text between the
 * ids never changes.
 */
export function rootParts(appliance: string, driver: DriverKind, layout: SnapshotLayout): readonly Uint8Array[] {
  const texts = [
    `{"appliance":${JSON.stringify(appliance)},"bindings":`,
    ',"certificates":',
    ',"conditions":',
    `,"driver":${JSON.stringify(driver)},"layout":${layout.version},"pools":`,
    ',"virtualServices":',
    '}',
  ];
  return texts.map((t) => utf8.encode(t));
}

/** Writes the root piece (its fixed parts with the five trie ids between them) into the arena; returns its bytes. */
export function writeRootPiece(
  arena: ByteArena,
  parts: readonly Uint8Array[],
  ids: readonly (string | null)[],
): Uint8Array {
  let n = 0;
  // Indexed loops: this runs once per commit, and for-of here allocated an iterator result per element.
  for (let i = 0; i < parts.length; i++) n += parts[i]!.length;
  for (let i = 0; i < ids.length; i++) n += ids[i] === null ? 4 : ids[i]!.length + 2;
  arena.reserve(n);
  for (let i = 0; i < ids.length; i++) {
    arena.bytes(parts[i]!);
    arena.jsonId(ids[i]!);
  }
  arena.bytes(parts[ids.length]!);
  return arena.take();
}
