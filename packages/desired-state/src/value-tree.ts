import { canonicalJson, compareCodeUnits } from './canonical-json.ts';
import { sha256Text } from './content-hash.ts';
import { fnv, groups, splitLines } from './value-tree-chunks.ts';
import { JoinedText } from './joined-text.ts';
import { unchangedChunks, type ChunkedArray } from './value-tree-array-diff.ts';

/**
 * A JSON value stored as a tree of content-addressed pieces, so that storing a value that differs a little from
 * one stored before writes only the pieces that differ (an appliance read-back after a one-endpoint change).
 *
 * The root piece is `{"$tree":1,"value":E}` where E is the value's canonical JSON with large parts replaced:
 * `{"$ref":id}` (a piece holding an encoded value) and `{"$cat":[id…]}` (a long array or string, the
 * concatenation of its chunk pieces: encoded JSON arrays, JSON strings split at line boundaries, or again
 * `{"$cat":…}` groups, so no list of ids grows past about 64). An original object whose only key starts with `$`
 * is escaped as `{"$obj":…}`.
 * Chunk boundaries depend only on content, so an insertion moves few chunks. Ids are base64url SHA-256 of the
 * piece text, like snapshot pieces; a value that is not a tree (older records) decodes as itself.
 */

/** Where new pieces go: id → piece text. */
export type TreeSink = Map<string, string>;

const INLINE_MAX = 512;
const REMEMBER_MIN = 128;
const ARRAY_CHUNKING_MIN = 64;
const STRING_CHUNKING_MIN = 8192;

/** A concatenation's first grouping level: where each group of ids ends (exclusive), and the group's piece id. */
interface FirstLevel {
  readonly ends: readonly number[];
  readonly groupIds: readonly string[];
}

/** A part list as encoded: its parts, the ids the concatenation is made of, and their first level. */
interface EncodedParts extends FirstLevel {
  readonly parts: readonly string[];
  readonly separator: string;
  readonly ids: readonly string[];
  /** The generation of the encode; its ids are usable exactly when that generation's are. */
  readonly gen: number;
}

/** Part lists remembered for encoding by difference (haproxy.cfg of a render, of a read-back, ...). */
const PART_LISTS_KEPT = 3;

/** Long arrays remembered for encoding by difference (a render's backends, its map entries, ...): each keeps its elements alive. */
const ARRAYS_KEPT = 4;

interface Fragment {
  readonly text: string;
  /** Whether an array chunk ends after this element (content-defined, from the text). */
  readonly boundary: boolean;
  /** The encoder generation that emitted the pieces this fragment refers to. */
  readonly gen: number;
}

/**
 * Encodes values as piece trees, remembering (by object identity, so values must not be mutated after encoding)
 * what it encoded before: encoding a value that shares most objects with an earlier one costs the changed parts.
 * Pieces remembered from an encode are reused only after `confirm(gen)` says that encode's pieces were stored.
 */
export class ValueTreeEncoder {
  #objects = new WeakMap<object, Fragment>();
  #strings = new Map<string, Fragment>();
  #parts = new Map<string, Fragment>();
  /** Chunk and group pieces by their text: an array that changed in one element rebuilds its chunk texts, not their hashes. */
  #chunks = new Map<string, Fragment>();
  /** Array chunks by their first element: the elements and the chunk's piece id. */
  #runs = new WeakMap<object, { readonly values: readonly unknown[]; readonly fragment: Fragment }>();
  /**
   * Group pieces by (first id, last id, length): the ids and the group's piece id. An unchanged group of a long
   * concatenation (haproxy.cfg's 20k section ids at 10k backends) is then found by comparing ids, without building
   * and hashing its text again.
   */
  #groupRuns = new Map<string, { readonly ids: readonly string[]; readonly fragment: Fragment }>();
  /** The last part lists encoded, newest first (`#partsOf` encodes the next version of one by difference). */
  #partLists: EncodedParts[] = [];
  /** The last long arrays encoded, newest first (`#chunkedArray` encodes the next version of one by difference). */
  #arrays: ChunkedArray[] = [];
  /** Group boundaries by piece id (`#endsGroup`). */
  #boundaries = new Map<string, boolean>();
  /** Generations whose pieces are not known to be stored (their fragments are not reused). */
  #pending = new Set<number>();
  #gen = 0;

  /** Encodes `value`; returns the root id, the pieces to store, and the generation to confirm once stored. */
  encode(value: unknown): { readonly root: string; readonly pieces: TreeSink; readonly gen: number } {
    const { roots, pieces, gen } = this.encodeAll([value]);
    return { root: roots[0]!, pieces, gen };
  }

  /**
   * Encodes several values as one generation (one tree each, stored together): what one of them holds the others
   * share, by identity, within the same encode (an apply's operations and its read-back: the same haproxy.cfg).
   */
  encodeAll(values: readonly unknown[]): {
    readonly roots: readonly string[];
    readonly pieces: TreeSink;
    readonly gen: number;
  } {
    const gen = ++this.#gen;
    this.#pending.add(gen);
    const pieces: TreeSink = new Map();
    const roots = values.map((value) => {
      const text = `{"$tree":1,"value":${this.#fragment(value, gen, pieces)}}`;
      const root = sha256Text(text, 'base64url');
      pieces.set(root, text);
      return root;
    });
    return { roots, pieces, gen };
  }

  /** Marks an encode's pieces as stored, so later encodes may refer to them instead of emitting them again. */
  confirm(gen: number): void {
    this.#pending.delete(gen);
    // Long strings are remembered by content: keep only those of the newest stored generation.
    for (const [s, f] of this.#strings) if (f.gen !== gen) this.#strings.delete(s);
  }

  #usable(f: Fragment | undefined, gen: number): f is Fragment {
    return f !== undefined && (f.gen === gen || !this.#pending.has(f.gen));
  }

  #fragment(value: unknown, gen: number, sink: TreeSink): string {
    if (value === null || typeof value !== 'object') {
      if (typeof value === 'string' && value.length >= STRING_CHUNKING_MIN) return this.#longString(value, gen, sink);
      return canonicalJson(value);
    }
    // A text given as parts (haproxy.cfg as its sections) is stored as one piece per distinct part, found by
    // reference in later encodes, instead of being joined, scanned and hashed again; it decodes as the joined string.
    if (value instanceof JoinedText) return this.#partsOf(value.parts, value.separator, gen, sink);
    const held = this.#objects.get(value);
    if (this.#usable(held, gen)) return held.text;
    let text: string;
    if (Array.isArray(value)) {
      text =
        value.length >= ARRAY_CHUNKING_MIN
          ? this.#chunkedArray(value, gen, sink)
          : `[${value.map((v) => this.#fragment(v, gen, sink)).join(',')}]`;
    } else {
      const o = value as Record<string, unknown>;
      const keys = Object.keys(o)
        .filter((k) => o[k] !== undefined)
        .sort(compareCodeUnits);
      text = `{${keys.map((k) => `${JSON.stringify(k)}:${this.#fragment(o[k], gen, sink)}`).join(',')}}`;
      if (keys.length === 1 && keys[0]!.startsWith('$')) text = `{"$obj":${text}}`;
    }
    const large = text.length > INLINE_MAX;
    if (large) text = ref(text, sink);
    // Small plain objects are not remembered (their parent is): 160k slot objects would cost more than re-encoding.
    // Anything that stands for pieces (a reference, a chunked array or string) is, however short its text.
    if (large || text.length >= REMEMBER_MIN || text.includes('{"$'))
      this.#objects.set(value, { text, gen, boundary: (fnv(text) & 31) === 0 });
    return text;
  }

  /**
   * A string given as parts joined by a separator: one piece per distinct part (and one for the separator). A part
   * list of the same length as one encoded before (the next render of haproxy.cfg) is encoded by difference: parts
   * that are the very strings of that list keep their ids, and only the first-level groups holding a changed id
   * are rebuilt, so an endpoint change at 10k backends costs a pass of identity checks, not 40k lookups and hashes.
   */
  #partsOf(parts: readonly string[], separator: string, gen: number, sink: TreeSink): string {
    if (this.#parts.size > 4 * parts.length + 1024) this.#parts.clear();
    const idOf = (part: string): string => {
      const held = this.#parts.get(part);
      if (this.#usable(held, gen)) return held.text;
      const id = emit(JSON.stringify(part), sink);
      this.#parts.set(part, { text: id, gen, boundary: false });
      return id;
    };
    const between = separator === '' ? null : idOf(separator);
    const stride = between === null ? 1 : 2;
    const base = this.#partLists.find(
      (p) =>
        p.parts.length === parts.length && p.separator === separator && (p.gen === gen || !this.#pending.has(p.gen)),
    );
    let ids: string[];
    let level: FirstLevel | null = null;
    if (base !== undefined) {
      ids = base.ids.slice();
      const changed: number[] = [];
      for (let i = 0; i < parts.length; i++) {
        const part = parts[i]!;
        if (part === base.parts[i]) continue;
        const id = idOf(part);
        if (id !== ids[i * stride]) {
          ids[i * stride] = id;
          changed.push(i * stride);
        }
      }
      level = this.#regroup(base, ids, changed, gen, sink);
    } else {
      ids = [];
      for (const [i, part] of parts.entries()) {
        if (i > 0 && between !== null) ids.push(between);
        ids.push(idOf(part));
      }
    }
    level ??= this.#firstLevel(ids, gen, sink);
    if (level === null) return this.#concatenation(ids, gen, sink);
    this.#partLists = [{ parts, separator, ids, ...level, gen }, ...this.#partLists.filter((p) => p !== base)].slice(
      0,
      PART_LISTS_KEPT,
    );
    return this.#concatenation(level.groupIds, gen, sink);
  }

  /** The first grouping level of a concatenation (what `#concatenation` builds first); null when it has no groups. */
  #firstLevel(ids: readonly string[], gen: number, sink: TreeSink): FirstLevel | null {
    if (ids.length <= ARRAY_CHUNKING_MIN) return null;
    const ends: number[] = [];
    const groupIds: string[] = [];
    let start = 0;
    for (let i = 0; i < ids.length; i++) {
      if (i !== ids.length - 1 && !this.#endsGroup(ids[i]!)) continue;
      groupIds.push(this.#group(ids.slice(start, i + 1), gen, sink));
      ends.push(i + 1);
      start = i + 1;
    }
    return { ends, groupIds };
  }

  /**
   * `base`'s first level with the ids at `changed` (ascending) replaced: the groups holding them are rebuilt, the
   * others kept. Null when a replaced id moves a group boundary (then the level is built again).
   */
  #regroup(
    base: EncodedParts,
    ids: readonly string[],
    changed: readonly number[],
    gen: number,
    sink: TreeSink,
  ): FirstLevel | null {
    if (ids.length <= ARRAY_CHUNKING_MIN) return null;
    const last = ids.length - 1;
    for (const at of changed)
      if (at !== last && this.#endsGroup(ids[at]!) !== this.#endsGroup(base.ids[at]!)) return null;
    const groupIds = base.groupIds.slice();
    let g = 0;
    let rebuilt = -1;
    for (const at of changed) {
      while (base.ends[g]! <= at) g++;
      if (g === rebuilt) continue;
      groupIds[g] = this.#group(ids.slice(g === 0 ? 0 : base.ends[g - 1], base.ends[g]), gen, sink);
      rebuilt = g;
    }
    return { ends: base.ends, groupIds };
  }

  /** Emits a chunk or group piece unless an earlier stored encode emitted the same text. */
  #chunk(text: string, gen: number, sink: TreeSink): string {
    const held = this.#chunks.get(text);
    if (this.#usable(held, gen)) return held.text;
    const id = emit(text, sink);
    this.#chunks.set(text, { text: id, gen, boundary: false });
    return id;
  }

  /** The `$cat` fragment over chunk pieces, grouping the ids level by level until one list is short. */
  #concatenation(chunkIds: readonly string[], gen: number, sink: TreeSink): string {
    let ids = chunkIds;
    while (ids.length > ARRAY_CHUNKING_MIN)
      ids = groups(ids, (id) => this.#endsGroup(id)).map((g) => this.#group(g, gen, sink));
    return `{"$cat":[${ids.map((id) => `"${id}"`).join(',')}]}`;
  }

  /** One group piece of a concatenation: found by its ids when a stored encode made the same group. */
  #group(ids: readonly string[], gen: number, sink: TreeSink): string {
    if (this.#groupRuns.size > 1 << 16) this.#groupRuns.clear();
    const key = `${ids[0]!} ${ids[ids.length - 1]!} ${ids.length}`;
    const known = this.#groupRuns.get(key);
    if (known !== undefined && this.#usable(known.fragment, gen) && known.ids.every((id, k) => id === ids[k]))
      return known.fragment.text;
    const id = this.#chunk(`{"$cat":[${ids.map((x) => `"${x}"`).join(',')}]}`, gen, sink);
    this.#groupRuns.set(key, { ids, fragment: { text: id, gen, boundary: false } });
    return id;
  }

  /**
   * Splits an array into chunk pieces at content-defined boundaries (about 32 elements each). A chunk whose
   * elements are the very objects of a chunk stored before is found by reference, without encoding it again. An
   * array that shares its first or last element with one encoded before (the next render's backends) is encoded by
   * difference: the chunks before the first and after the last element that differs keep their ids, found by one
   * pass of identity checks, so an endpoint change at 10k backends does not look up every backend.
   */
  #chunkedArray(values: readonly unknown[], gen: number, sink: TreeSink): string {
    if (this.#chunks.size > 1 << 16) this.#chunks.clear();
    const base = this.#arrays.find(
      (a) =>
        (a.gen === gen || !this.#pending.has(a.gen)) &&
        (a.values[0] === values[0] || a.values.at(-1) === values.at(-1)),
    );
    const kept = base === undefined ? null : unchangedChunks(base, values);
    const ids = kept?.headIds ?? [];
    const ends = kept?.headEnds ?? [];
    const to = kept?.to ?? values.length;
    let start = kept?.from ?? 0;
    for (let i = start; i < to; i++) {
      const v = values[i];
      const held = typeof v === 'object' && v !== null ? this.#objects.get(v) : undefined;
      const boundary = this.#usable(held, gen) ? held.boundary : (fnv(this.#fragment(v, gen, sink)) & 31) === 0;
      // The element before a kept tail chunk ended a chunk before, by its content: the same boundary here.
      if (!boundary && i !== to - 1) continue;
      ids.push(this.#chunkOf(values, start, i + 1, gen, sink));
      ends.push(i + 1);
      start = i + 1;
    }
    if (kept !== null) {
      ids.push(...kept.tailIds);
      ends.push(...kept.tailEnds);
    }
    this.#arrays = [{ values, ends, ids, gen }, ...this.#arrays.filter((a) => a !== base)].slice(0, ARRAYS_KEPT);
    return this.#concatenation(ids, gen, sink);
  }

  #chunkOf(values: readonly unknown[], from: number, to: number, gen: number, sink: TreeSink): string {
    const first = values[from];
    const known = typeof first === 'object' && first !== null ? this.#runs.get(first) : undefined;
    if (
      known !== undefined &&
      this.#usable(known.fragment, gen) &&
      known.values.length === to - from &&
      known.values.every((v, k) => v === values[from + k])
    )
      return known.fragment.text;
    const slice = values.slice(from, to);
    const id = this.#chunk(`[${slice.map((v) => this.#fragment(v, gen, sink)).join(',')}]`, gen, sink);
    if (typeof first === 'object' && first !== null)
      this.#runs.set(first, { values: slice, fragment: { text: id, gen, boundary: false } });
    return id;
  }

  /** Whether a group of ids ends after `id` (content-defined); remembered, as the same ids recur in every encode. */
  #endsGroup(id: string): boolean {
    let b = this.#boundaries.get(id);
    if (b === undefined) {
      if (this.#boundaries.size > 1 << 17) this.#boundaries.clear();
      b = (fnv(id) & 31) === 0;
      this.#boundaries.set(id, b);
    }
    return b;
  }

  #longString(s: string, gen: number, sink: TreeSink): string {
    const held = this.#strings.get(s);
    if (this.#usable(held, gen)) return held.text;
    const text = this.#concatenation(
      splitLines(s).map((chunk) => this.#chunk(JSON.stringify(chunk), gen, sink)),
      gen,
      sink,
    );
    this.#strings.set(s, { text, gen, boundary: false });
    return text;
  }
}

function ref(text: string, sink: TreeSink): string {
  return `{"$ref":"${emit(text, sink)}"}`;
}

/** Emits a piece; returns its id. */
function emit(text: string, sink: TreeSink): string {
  const id = sha256Text(text, 'base64url');
  sink.set(id, text);
  return id;
}
