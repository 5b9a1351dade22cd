import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Identity, Role } from '../core/identity.ts';

/** A token the fleet config grants: its holder's name, role and the SHA-256 of the token (hex). */
export interface TokenGrant {
  readonly name: string;
  readonly role: Role;
  readonly sha256: string;
}

/** Tokens begin with this, so a leaked one is recognisable (secret scanners) and a pasted hash is not mistaken for one. */
export const TOKEN_PREFIX = 'ptl_';

/** A new token: the prefix and 32 random bytes, base64url. Shown once; only its hash is kept. */
export function newToken(): string {
  return `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/**
 * The hash the fleet config keeps. Tokens are 256 random bits, so one SHA-256 is enough: there is nothing to guess
 * that a slow hash would protect (as for API tokens everywhere; passwords would need scrypt).
 */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The grant whose hash matches the presented token, compared in constant time; null when none does. */
export function authenticateToken(grants: readonly TokenGrant[], presented: string): Identity | null {
  const digest = createHash('sha256').update(presented, 'utf8').digest();
  let found: TokenGrant | null = null;
  // Every grant is compared, so the time taken does not tell which one matched.
  for (const g of grants) {
    const expected = Buffer.from(g.sha256, 'hex');
    if (expected.length === digest.length && timingSafeEqual(expected, digest)) found = g;
  }
  return found === null ? null : { name: found.name, role: found.role, via: 'token' };
}
