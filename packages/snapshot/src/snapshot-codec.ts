import type {
  Certificate,
  DesiredState,
  ObjectCondition,
  ObjectRef,
  Pool,
  PoolMember,
  Route,
  ServiceBinding,
  VirtualService,
} from '@portolan/desired-state';
import { compareCodeUnits } from '@portolan/desired-state';
import { memberSortKey, orderCertificates, refKey, routeSortKey } from './canonical-order.ts';
import { SnapshotCorruptError, SnapshotPieceMissingError } from './errors.ts';
import { readTrieItemIds } from './hash-trie.ts';
import { pieceIdOf } from './piece.ts';
import { encodeSnapshot } from './encode-snapshot.ts';
import { CURRENT_LAYOUT, layoutOf, type SnapshotLayout } from './snapshot-layout.ts';

/** A snapshot split into content-addressed pieces: the root id (the snapshot hash) and every piece by id (UTF-8 bytes). */
export interface SplitSnapshot {
  readonly root: string;
  readonly pieces: Map<string, Uint8Array>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** Splits a desired state into content-addressed pieces (structural sharing: equal sub-trees are equal pieces). */
export function splitSnapshot(desired: DesiredState, layout: SnapshotLayout = CURRENT_LAYOUT): SplitSnapshot {
  const { root, pieces } = encodeSnapshot(desired, layout);
  const bytes = new Map<string, Uint8Array>();
  for (const [id, text] of pieces) bytes.set(id, encoder.encode(text));
  return { root, pieces: bytes };
}

/** Looks a piece up by id; undefined when the store does not have it. */
export type PieceLookup = (id: string) => Uint8Array | string | undefined;

/**
 * Reassembles a desired state from its root and a piece lookup, verifying every piece against its content
 * address. Throws SnapshotPieceMissingError / SnapshotCorruptError (store faults, never user input).
 */
export function joinSnapshot(root: string, getPiece: PieceLookup): DesiredState {
  const read = (id: string): unknown => {
    const raw = getPiece(id);
    if (raw === undefined) throw new SnapshotPieceMissingError(id);
    return parsePiece(id, raw);
  };
  const top = read(root) as Record<string, unknown>;
  if (layoutOf(top['layout']) === undefined)
    throw new SnapshotCorruptError(root, `unknown layout ${String(top['layout'])}`);
  const items = <T>(trie: unknown): T[] => readTrieItemIds(nullableId(trie), read).map((id) => read(id) as T);
  const virtualServices = items<Record<string, unknown>>(top['virtualServices'])
    .map((raw) => joinVirtualService(raw, items))
    .sort((a, b) => compareCodeUnits(a.name, b.name));
  const pools = items<Record<string, unknown>>(top['pools'])
    .map((raw): Pool => ({ ...(raw as unknown as Pool), members: membersOf(raw['members'], items) }))
    .sort((a, b) => compareCodeUnits(a.name, b.name));
  const bindings = items<Record<string, unknown>>(top['bindings'])
    .map((raw): ServiceBinding => ({
      ...(raw as unknown as ServiceBinding),
      members: membersOf(raw['members'], items),
    }))
    .sort((a, b) => compareCodeUnits(a.target, b.target));
  const certificates = items<Certificate>(top['certificates']).sort((a, b) => compareCodeUnits(a.name, b.name));
  const conditions = items<ObjectCondition[]>(top['conditions'])
    .sort((a, b) => compareCodeUnits(refKey(a[0]!.object), refKey(b[0]!.object)))
    .flat();
  return {
    appliance: String(top['appliance']),
    driver: top['driver'] as DesiredState['driver'],
    virtualServices,
    pools,
    certificates,
    bindings,
    conditions,
  };
}

/** A stored piece verified against its content address and parsed; SnapshotCorruptError when it is not what its id says. */
export function parsePiece(id: string, raw: Uint8Array | string): unknown {
  let text: string;
  try {
    text = typeof raw === 'string' ? raw : decoder.decode(raw);
  } catch (cause) {
    throw new SnapshotCorruptError(id, 'not UTF-8', { cause });
  }
  if (pieceIdOf(text) !== id) throw new SnapshotCorruptError(id, 'content does not match its address');
  try {
    return JSON.parse(text) as unknown;
  } catch (cause) {
    throw new SnapshotCorruptError(id, 'not JSON', { cause });
  }
}

function joinVirtualService(raw: Record<string, unknown>, items: <T>(trie: unknown) => T[]): VirtualService {
  const { owners: ownersTrie, certificates: certTrie, routes: routeTrie, defaultCertificate, ...header } = raw;
  const routes = items<Route>(routeTrie)
    .map((r) => ({ r, k: routeSortKey(r) }))
    .sort((a, b) => compareCodeUnits(a.k, b.k))
    .map((x) => x.r);
  return {
    ...(header as unknown as Omit<VirtualService, 'owners' | 'certificates' | 'routes'>),
    owners: orderOwners(items<{ r: ObjectRef; p: string | null }>(ownersTrie)),
    certificates: orderCertificates(
      typeof defaultCertificate === 'string' ? defaultCertificate : null,
      items<string>(certTrie),
    ),
    routes,
  };
}

/** Rebuilds the creation-ordered owner list from its (owner, predecessor) pairs. */
function orderOwners(pairs: readonly { r: ObjectRef; p: string | null }[]): ObjectRef[] {
  const next = new Map<string | null, ObjectRef>();
  for (const pair of pairs) next.set(pair.p, pair.r);
  const out: ObjectRef[] = [];
  for (let cur = next.get(null); cur !== undefined && out.length < pairs.length; cur = next.get(refKey(cur)))
    out.push(cur);
  return out;
}

/** A pool's or binding's members: inline (an array, layout 2) or the items of a sub-trie; in sort-key order. */
function membersOf(field: unknown, items: <T>(trie: unknown) => T[]): PoolMember[] {
  return sortedMembers(Array.isArray(field) ? (field as PoolMember[]) : items<PoolMember>(field));
}

function sortedMembers(members: PoolMember[]): PoolMember[] {
  return members
    .map((m) => ({ m, k: memberSortKey(m) }))
    .sort((a, b) => compareCodeUnits(a.k, b.k))
    .map((x) => x.m);
}

function nullableId(x: unknown): string | null {
  return typeof x === 'string' ? x : null;
}

/**
 * The piece ids one piece refers to (trie children, items, sub-tries), so a shell can fetch a snapshot level by
 * level with batched queries before calling `joinSnapshot`.
 */
export function pieceReferences(text: string): string[] {
  return referencesOf(JSON.parse(text) as unknown);
}

/** `pieceReferences` of a piece already parsed. */
export function referencesOf(v: unknown): string[] {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return [];
  const o = v as Record<string, unknown>;
  if (Array.isArray(o['l'])) return o['l'].filter((x): x is string => typeof x === 'string');
  if (Array.isArray(o['c'])) return o['c'].filter((x): x is string => typeof x === 'string');
  const fields =
    o['layout'] !== undefined
      ? ['virtualServices', 'pools', 'certificates', 'bindings', 'conditions']
      : ['owners', 'certificates', 'routes', 'members'];
  return fields.map((f) => o[f]).filter((x): x is string => typeof x === 'string');
}
