import { createHash, hash } from 'node:crypto';
import { canonicalJson } from './canonical-json.ts';

/** Content address of a JSON value: hex SHA-256 of its canonical encoding. */
export function contentHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

/**
 * SHA-256 of already-encoded text (e.g. a canonicalJson result), given as the string or as its UTF-8 bytes (the same
 * digest either way), so callers holding the bytes need not encode twice.
 */
export function sha256Text(text: string | Uint8Array, encoding: 'hex' | 'base64url' = 'hex'): string {
  // One-shot hash(): ~2.5x faster than createHash() for the small pieces snapshots are made of.
  return hash('sha256', text, encoding);
}
