import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.ts';

/** Content address of a JSON value: hex SHA-256 of its canonical encoding. */
export function contentHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}
