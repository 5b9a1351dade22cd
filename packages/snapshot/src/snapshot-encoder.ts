import { SnapshotEncoderMisuseError } from './errors.ts';
import type {
  Certificate,
  DesiredState,
  DriverKind,
  ObjectCondition,
  ObjectRef,
  Pool,
  PoolMember,
  Route,
  ServiceBinding,
  VirtualService,
} from '@portolan/desired-state';
import { canonicalJson, compareCodeUnits } from '@portolan/desired-state';
import { conditionSortKey, orderCertificates, refKey, routeSortKey } from './canonical-order.ts';
import { ItemTrie } from './item-trie.ts';
import { InlineMembers, NOTHING_SYNCED, syncMembers, type SyncedMembers } from './member-sync.ts';
import { ByteArena, PieceSink } from './piece.ts';
import { Committed, MARK, samePoolHeader, splitAround, type EncodedSnapshot } from './encoded-snapshot.ts';
import { CURRENT_LAYOUT, type SnapshotLayout } from './snapshot-layout.ts';
import {
  rootParts,
  writeRootPiece,
  type BindingState,
  type Members,
  type PoolState,
  type VsHeader,
  type VsState,
} from './encoder-state.ts';

export type { EncodedSnapshot } from './encoded-snapshot.ts';

/** How an encoder is used: `keepsPieces: false` addresses pieces without recording them (only roots are wanted). */
export interface EncoderOptions {
  readonly keepsPieces?: boolean;
}

/** Version of the layout new snapshots are written in (part of the root: a layout change changes every hash visibly). */
export const SNAPSHOT_LAYOUT = CURRENT_LAYOUT.version;

/**
 * Incremental, structurally shared snapshot encoding of one appliance's desired state. Callers set and delete
 * items; `commit` seals only what changed, so a one-endpoint change emits one member, the trie path above it, the
 * pool piece, the pools-trie path and the root — a few KB whatever the world's size. `encodeSnapshot` uses the same
 * code from scratch, so incremental and full encodings are byte-identical.
 */
export class SnapshotEncoder {
  readonly appliance: string;
  readonly driver: DriverKind;
  readonly layout: SnapshotLayout;
  private readonly arena = new ByteArena();
  /** False: commits return the root and no pieces (a replay that only proves hashes stores nothing). */
  private readonly keepsPieces: boolean;
  private sink: PieceSink;
  private readonly vsTrie: ItemTrie<unknown>;
  private readonly poolTrie: ItemTrie<unknown>;
  private readonly certTrie: ItemTrie<Certificate>;
  private readonly bindingTrie: ItemTrie<unknown>;
  private readonly conditionTrie: ItemTrie<readonly ObjectCondition[]>;
  private readonly vs = new Map<string, VsState>();
  private readonly pools = new Map<string, PoolState>();
  private readonly bindings = new Map<string, BindingState>();
  private readonly dirtyVs = new Set<string>();
  private readonly dirtyPools = new Set<string>();
  private readonly dirtyBindings = new Set<string>();
  private lastRoot: string | null = null;

  /** The root piece's fixed text around its five ids, as UTF-8 bytes. */
  private readonly rootParts: readonly Uint8Array[];

  constructor(
    appliance: string,
    driver: DriverKind,
    layout: SnapshotLayout = CURRENT_LAYOUT,
    options: EncoderOptions = {},
  ) {
    this.appliance = appliance;
    this.driver = driver;
    this.layout = layout;
    this.keepsPieces = options.keepsPieces ?? true;
    this.sink = new PieceSink(this.arena, this.keepsPieces);
    this.vsTrie = this.trie();
    this.poolTrie = this.trie();
    this.certTrie = this.trie();
    this.bindingTrie = this.trie();
    this.conditionTrie = this.trie();
    this.rootParts = rootParts(appliance, driver, layout);
  }

  /** Sets a whole virtual service (lists are diffed against what is stored). */
  setVirtualService(v: VirtualService): void {
    const { owners, certificates, routes, ...header } = v;
    this.setVsHeader(header);
    this.setVsOwners(v.name, owners);
    this.setVsCertificates(v.name, certificates[0] ?? null, certificates.slice(1));
    const state = this.vs.get(v.name)!;
    const wanted = new Map(routes.map((r) => [routeSortKey(r), r] as const));
    for (const key of [...state.routeTrie.items.keys()]) if (!wanted.has(key)) this.removeRoute(v.name, key);
    for (const r of routes) this.upsertRoute(v.name, r);
  }

  /** Sets the scalar fields of a virtual service, creating it when new. */
  setVsHeader(header: VsHeader): void {
    const state = this.vs.get(header.name);
    if (state === undefined) {
      this.vs.set(header.name, {
        header,
        owners: [],
        ownerTrie: this.trie(),
        defaultCertificate: null,
        certTrie: this.trie(),
        routeTrie: this.trie(),
      });
    } else {
      state.header = header;
    }
    this.dirtyVs.add(header.name);
  }

  /**
   * Replaces a virtual service's owner list (creation order); only changed (owner, predecessor) pairs are
   * rewritten. The common prefix and suffix are skipped by identity first, so a newcomer joining a listener shared
   * by thousands of Ingresses costs a pass of pointer comparisons, not thousands of encodings.
   */
  setVsOwners(name: string, owners: readonly ObjectRef[]): void {
    const state = this.mustVs(name);
    const old = state.owners;
    let head = 0;
    while (head < old.length && head < owners.length && old[head] === owners[head]) head++;
    let tail = 0;
    while (
      tail < old.length - head &&
      tail < owners.length - head &&
      old[old.length - 1 - tail] === owners[owners.length - 1 - tail]
    )
      tail++;
    // Pairs that can change: the differing middle, plus the first element after it (its predecessor may change).
    const from = head;
    const oldTo = Math.min(old.length, old.length - tail + 1);
    const newTo = Math.min(owners.length, owners.length - tail + 1);
    const wanted = new Map<string, { r: ObjectRef; p: string | null }>();
    for (let i = from; i < newTo; i++)
      wanted.set(refKey(owners[i]!), { r: owners[i]!, p: i === 0 ? null : refKey(owners[i - 1]!) });
    for (let i = from; i < oldTo; i++) {
      const key = refKey(old[i]!);
      if (!wanted.has(key)) state.ownerTrie.delete(key);
    }
    for (const [key, item] of wanted)
      if (state.ownerTrie.items.get(key)?.value.p !== item.p || !state.ownerTrie.items.has(key))
        state.ownerTrie.set(key, item, this.sink);
    state.owners = owners.slice();
    this.dirtyVs.add(name);
  }

  /** Sets a virtual service's certificates: the default one, and the others (any order). */
  setVsCertificates(name: string, defaultName: string | null, others: Iterable<string>): void {
    const state = this.mustVs(name);
    const rest = new Set(others);
    if (defaultName !== null) rest.delete(defaultName);
    for (const key of [...state.certTrie.items.keys()]) if (!rest.has(key)) state.certTrie.delete(key);
    for (const n of rest) state.certTrie.set(n, n, this.sink);
    state.defaultCertificate = defaultName;
    this.dirtyVs.add(name);
  }

  /** Adds or replaces one route of a virtual service. */
  upsertRoute(vsName: string, route: Route): void {
    this.mustVs(vsName).routeTrie.set(routeSortKey(route), route, this.sink);
    this.dirtyVs.add(vsName);
  }

  /** Removes one route of a virtual service by its `routeSortKey`. */
  removeRoute(vsName: string, sortKey: string): void {
    this.vs.get(vsName)?.routeTrie.delete(sortKey);
    this.dirtyVs.add(vsName);
  }

  /** Deletes a virtual service and everything under it. */
  deleteVirtualService(name: string): void {
    if (!this.vs.delete(name)) return;
    this.dirtyVs.delete(name);
    this.vsTrie.delete(name);
  }

  /** Sets a whole pool (members are diffed against what is stored). */
  setPool(pool: Pool): void {
    const { members, ...header } = pool;
    let state = this.pools.get(pool.name);
    if (state === undefined) {
      state = { header, members: this.membersFor(members.length), text: null, synced: NOTHING_SYNCED };
      this.pools.set(pool.name, state);
    }
    // An equal header is kept: the new one (rebuilt on every endpoint change) is then garbage at once.
    if (!samePoolHeader(state.header, header)) {
      state.text = null;
      state.header = header;
    }
    this.syncPoolMembers(state, members);
    this.dirtyPools.add(pool.name);
  }

  /** Replaces the members of a pool whose header is unchanged (the pool must exist). */
  setPoolMembers(name: string, members: readonly PoolMember[]): void {
    const state = this.pools.get(name);
    if (state === undefined)
      throw new SnapshotEncoderMisuseError(
        `SnapshotEncoder: pool ${name} does not exist (bug: set the whole pool first)`,
      );
    this.syncPoolMembers(state, members);
    this.dirtyPools.add(name);
  }

  /** Brings a pool's or binding's members to `members`, moving them inline or into a sub-trie when the count says so. */
  private syncPoolMembers(
    state: { members: Members; synced: SyncedMembers | null },
    members: readonly PoolMember[],
  ): void {
    if (state.members instanceof InlineMembers !== this.inlines(members.length)) {
      state.members = this.membersFor(members.length);
      state.synced = NOTHING_SYNCED;
    }
    state.synced = syncMembers(state.members, members, this.sink, state.synced);
  }

  private inlines(count: number): boolean {
    return this.layout.inlineMembers > 0 && count <= this.layout.inlineMembers;
  }

  private membersFor(count: number): Members {
    return this.inlines(count) ? new InlineMembers() : this.trie<PoolMember>();
  }

  private trie<T>(): ItemTrie<T> {
    return new ItemTrie<T>(this.layout.trie);
  }

  /** A pool's or binding's piece: `before` and `after` (from `splitAround`) around its members' array or sub-trie id. */
  private membersPiece(members: Members, before: Uint8Array, after: Uint8Array): Uint8Array {
    if (members instanceof InlineMembers) return members.writePiece(this.arena, before, after);
    return this.arena.splice(before, members.seal(this.sink), after);
  }

  /** Deletes a pool. */
  deletePool(name: string): void {
    if (!this.pools.delete(name)) return;
    this.dirtyPools.delete(name);
    this.poolTrie.delete(name);
  }

  /** Sets a certificate. */
  setCertificate(c: Certificate): void {
    this.certTrie.set(c.name, c, this.sink);
  }

  /** Deletes a certificate. */
  deleteCertificate(name: string): void {
    this.certTrie.delete(name);
  }

  /** Sets a service binding (LoadMaster Service mode). */
  setBinding(b: ServiceBinding): void {
    const { members, ...header } = b;
    let state = this.bindings.get(b.target);
    if (state === undefined) {
      state = { header, members: this.membersFor(members.length), synced: NOTHING_SYNCED };
      this.bindings.set(b.target, state);
    }
    state.header = header;
    this.syncPoolMembers(state, members);
    this.dirtyBindings.add(b.target);
  }

  /** Deletes a service binding. */
  deleteBinding(target: string): void {
    if (!this.bindings.delete(target)) return;
    this.dirtyBindings.delete(target);
    this.bindingTrie.delete(target);
  }

  /** Sets the conditions of one object (sorted here); an empty list removes the object. */
  setConditions(object: ObjectRef, conditions: readonly ObjectCondition[]): void {
    const key = refKey(object);
    if (conditions.length === 0) this.conditionTrie.delete(key);
    else
      this.conditionTrie.set(
        key,
        [...conditions].sort((a, b) => compareCodeUnits(conditionSortKey(a), conditionSortKey(b))),
        this.sink,
      );
  }

  /** Seals what changed; returns the root and the pieces emitted since the last commit. */
  commit(): EncodedSnapshot & { readonly changed: boolean } {
    const clean =
      !this.vsTrie.dirty &&
      !this.poolTrie.dirty &&
      !this.certTrie.dirty &&
      !this.bindingTrie.dirty &&
      !this.conditionTrie.dirty;
    if (this.lastRoot !== null && this.dirtyVs.size + this.dirtyPools.size + this.dirtyBindings.size === 0 && clean) {
      const sink = this.sink;
      this.sink = new PieceSink(this.arena, this.keepsPieces);
      return new Committed(this.lastRoot, sink, false);
    }
    if (this.dirtyVs.size > 0)
      for (const name of this.dirtyVs) {
        const s = this.vs.get(name);
        if (s === undefined) continue;
        this.vsTrie.set(
          name,
          {
            ...s.header,
            owners: s.ownerTrie.seal(this.sink),
            defaultCertificate: s.defaultCertificate,
            certificates: s.certTrie.seal(this.sink),
            routes: s.routeTrie.seal(this.sink),
          },
          this.sink,
        );
      }
    if (this.dirtyPools.size > 0)
      for (const name of this.dirtyPools) {
        const s = this.pools.get(name);
        if (s === undefined) continue;
        const text = (s.text ??= splitAround(canonicalJson({ ...s.header, members: MARK })));
        this.poolTrie.set(name, s.header, this.sink, this.membersPiece(s.members, text.before, text.after));
      }
    if (this.dirtyBindings.size > 0)
      for (const target of this.dirtyBindings) {
        const s = this.bindings.get(target);
        if (s === undefined) continue;
        const text = splitAround(canonicalJson({ ...s.header, members: MARK }));
        this.bindingTrie.set(target, s.header, this.sink, this.membersPiece(s.members, text.before, text.after));
      }
    if (this.dirtyVs.size > 0) this.dirtyVs.clear();
    if (this.dirtyPools.size > 0) this.dirtyPools.clear();
    if (this.dirtyBindings.size > 0) this.dirtyBindings.clear();
    const bindings = this.bindingTrie.seal(this.sink);
    const certificates = this.certTrie.seal(this.sink);
    const conditions = this.conditionTrie.seal(this.sink);
    const pools = this.poolTrie.seal(this.sink);
    const virtualServices = this.vsTrie.seal(this.sink);
    const root = this.sink.addBytes(
      writeRootPiece(this.arena, this.rootParts, [bindings, certificates, conditions, pools, virtualServices]),
    );
    const sink = this.sink;
    this.sink = new PieceSink(this.arena, this.keepsPieces);
    const changed = root !== this.lastRoot;
    this.lastRoot = root;
    return new Committed(root, sink, changed);
  }

  /** The root of the last commit (null before the first). */
  get root(): string | null {
    return this.lastRoot;
  }

  /** The current desired state, materialised with every array in canonical order (O(size): for reads, not per event). */
  toDesiredState(): DesiredState {
    const virtualServices = [...this.vs.entries()]
      .sort((a, b) => compareCodeUnits(a[0], b[0]))
      .map(([, s]): VirtualService => ({
        ...s.header,
        owners: s.owners,
        certificates: orderCertificates(s.defaultCertificate, s.certTrie.items.keys()),
        routes: s.routeTrie.sortedValues(),
      }));
    const pools = [...this.pools.entries()]
      .sort((a, b) => compareCodeUnits(a[0], b[0]))
      .map(([, s]): Pool => ({ ...s.header, members: s.members.sortedValues() }));
    const bindings = [...this.bindings.entries()]
      .sort((a, b) => compareCodeUnits(a[0], b[0]))
      .map(([, s]): ServiceBinding => ({ ...s.header, members: s.members.sortedValues() }));
    return {
      appliance: this.appliance,
      driver: this.driver,
      virtualServices,
      pools,
      certificates: this.certTrie.sortedValues(),
      bindings,
      conditions: this.conditionTrie.sortedValues().flat(),
    };
  }

  private mustVs(name: string): VsState {
    const s = this.vs.get(name);
    if (s === undefined)
      throw new SnapshotEncoderMisuseError(
        `SnapshotEncoder: virtual service ${name} has no header yet (bug: set the header first)`,
      );
    return s;
  }
}
