import type { MapEntry } from './haproxy-bundle.ts';

/** Entry-by-entry changes to a loaded map: each one atomic in HAProxy, none touching the other entries. */
export interface MapEdit {
  /** Keys HAProxy does not hold yet (`add map`). */
  readonly add: readonly MapEntry[];
  /** Keys whose value changes (`set map`). */
  readonly set: readonly MapEntry[];
  /** Keys to drop (`del map`). */
  readonly del: readonly string[];
}

/** Beyond this many entry changes a whole new map version (prepare, fill, commit) is sent instead. */
export const MAX_MAP_EDITS = 64;

/**
 * The entry changes turning `have` into `want` (both sorted by key, as renders and read-backs give them), or null when
 * a whole new version is the better answer: too many changes, or a key held twice (an edit could not tell which).
 * A new host adds a few keys to a map of ten thousand: three commands instead of the whole map again.
 */
export function mapEdit(have: readonly MapEntry[], want: readonly MapEntry[]): MapEdit | null {
  const add: MapEntry[] = [];
  const set: MapEntry[] = [];
  const del: string[] = [];
  let i = 0;
  let j = 0;
  while (i < have.length || j < want.length) {
    const h = have[i];
    const w = want[j];
    if (h !== undefined && i > 0 && have[i - 1]![0] === h[0]) return null;
    if (h !== undefined && (w === undefined || h[0] < w[0])) {
      del.push(h[0]);
      i++;
    } else if (w !== undefined && (h === undefined || w[0] < h[0])) {
      add.push(w);
      j++;
    } else {
      if (h![1] !== w![1]) set.push(w!);
      i++;
      j++;
    }
    if (add.length + set.length + del.length > MAX_MAP_EDITS) return null;
  }
  return { add, set, del };
}
