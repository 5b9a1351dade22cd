// Content-defined chunking for value trees: where an array or a long string is cut into pieces depends only on
// the content, so an insertion moves few boundaries.

/** Least characters of a long string's chunk before it may end at a section start. */
const STRING_CHUNK_MIN = 2048;

/** Groups items at content-defined boundaries (about 32 per group): an insertion moves one boundary at most. */
export function groups<T>(items: readonly T[], endsGroup: (item: T) => boolean): T[][] {
  const out: T[][] = [];
  let start = 0;
  for (let i = 0; i < items.length; i++) {
    if (i === items.length - 1 || endsGroup(items[i]!)) {
      out.push(items.slice(start, i + 1));
      start = i + 1;
    }
  }
  return out;
}

/** Splits text before lines that start a new section (no leading blank), once a chunk holds enough characters. */
export function splitLines(s: string): string[] {
  const out: string[] = [];
  let start = 0;
  let at = s.indexOf('\n', start + STRING_CHUNK_MIN);
  while (at >= 0 && at + 1 < s.length) {
    const next = s.charCodeAt(at + 1);
    if (next !== 32 && next !== 9 && next !== 10) {
      out.push(s.slice(start, at + 1));
      start = at + 1;
      at = s.indexOf('\n', start + STRING_CHUNK_MIN);
    } else {
      at = s.indexOf('\n', at + 1);
    }
  }
  out.push(s.slice(start));
  return out;
}

/** FNV-1a of a string's UTF-16 code units: where content-defined boundaries fall. */
export function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
