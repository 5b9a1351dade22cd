/** A long array as encoded: its elements, where each chunk ends (exclusive), the chunks' ids, and the generation. */
export interface ChunkedArray {
  readonly values: readonly unknown[];
  readonly ends: readonly number[];
  readonly ids: readonly string[];
  readonly gen: number;
}

/**
 * Which chunks of `base` an array `values` still has, by element identity (elements are never mutated after
 * encoding): the head chunks lie wholly before the first element that differs, and end at a content boundary (not
 * at base's last element, which always ends a chunk) unless the arrays are the same; the tail chunks start after an
 * element of the unchanged suffix, so the boundary before them is that element's own. The elements from `from` to
 * `to` are chunked again.
 */
export function unchangedChunks(
  base: ChunkedArray,
  values: readonly unknown[],
): { headIds: string[]; headEnds: number[]; from: number; to: number; tailIds: string[]; tailEnds: number[] } {
  const old = base.values;
  const shortest = Math.min(old.length, values.length);
  let p = 0;
  while (p < shortest && old[p] === values[p]) p++;
  let q = 0;
  while (q < shortest - p && old[old.length - 1 - q] === values[values.length - 1 - q]) q++;
  const same = p === old.length && p === values.length;
  let h = 0;
  while (h < base.ends.length && base.ends[h]! <= p && (base.ends[h]! < old.length || same)) h++;
  const from = h === 0 ? 0 : base.ends[h - 1]!;
  // The first chunk (after the head) whose start follows an element of the unchanged suffix.
  let t = Math.max(h, 1);
  while (t < base.ends.length && base.ends[t - 1]! - 1 < old.length - q) t++;
  const shift = values.length - old.length;
  const tail = t < base.ends.length && !same;
  return {
    headIds: base.ids.slice(0, h),
    headEnds: base.ends.slice(0, h),
    from,
    to: tail ? base.ends[t - 1]! + shift : values.length,
    tailIds: tail ? base.ids.slice(t) : [],
    tailEnds: tail ? base.ends.slice(t).map((e) => e + shift) : [],
  };
}
