/** Bytes a marker needs besides its keys (cluster, kind, versions, chunk numbers, timestamp): a generous bound. */
export const MARKER_FIXED_BYTES = 512;

const utf8 = new TextEncoder();

/** Protobuf bytes one `repeated string` entry costs: tag, length varint, content. */
function keyCost(key: string): number {
  const n = utf8.encode(key).length;
  return 1 + (n < 128 ? 1 : n < 16_384 ? 2 : 3) + n;
}

/**
 * Splits a sorted key set into list-marker chunks that each stay under `maxMessageBytes`, so a marker of any size
 * fits the broker's max payload. Deterministic: the same keys and limit always give the same chunks,
 * so chunk message ids deduplicate. An empty set is one empty chunk (it still deletes everything of the kind).
 */
export function chunkListMarkerKeys(sortedKeys: readonly string[], maxMessageBytes: number): string[][] {
  const budget = maxMessageBytes - MARKER_FIXED_BYTES;
  if (budget <= 0) throw new RangeError(`max message size ${maxMessageBytes} leaves no room for marker keys`);
  const chunks: string[][] = [];
  let current: string[] = [];
  let used = 0;
  for (const key of sortedKeys) {
    const cost = keyCost(key);
    if (current.length > 0 && used + cost > budget) {
      chunks.push(current);
      current = [];
      used = 0;
    }
    current.push(key);
    used += cost;
  }
  chunks.push(current);
  return chunks;
}
