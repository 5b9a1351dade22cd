/**
 * Piece ids mentioned by a decoded snapshot piece: every string that has the shape of a content address
 * (unpadded base64url SHA-256, 43 characters). Used to prefetch a snapshot's pieces breadth-first in a few
 * queries; a string that only looks like an id costs one lookup that finds nothing.
 */
export function referencedPieceIds(value: unknown, out: Set<string> = new Set()): Set<string> {
  if (typeof value === 'string') {
    if (value.length === 43 && /^[A-Za-z0-9_-]{43}$/.test(value)) out.add(value);
  } else if (Array.isArray(value)) {
    for (const v of value) referencedPieceIds(v, out);
  } else if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) referencedPieceIds(v, out);
  }
  return out;
}
