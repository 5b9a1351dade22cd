import { createMiddleware } from 'hono/factory';
import { allows, authenticateToken, TokenReviewError, type Identity, type Permission } from '@portolan/access';
import type { TokenGrant, TokenReviewer } from '@portolan/access';
import { ApiError } from './api-error.ts';

/** What the app's handlers find on the context once a call is authenticated. */
export interface ConsoleEnv {
  Variables: { identity: Identity };
}

/** Who may call: the fleet config's tokens, then (when configured) a cluster's TokenReview. */
export interface Authenticators {
  readonly tokens: readonly TokenGrant[];
  readonly review: TokenReviewer | null;
}

/** The bearer token of an Authorization header, or null. */
export function bearerToken(header: string | undefined): string | null {
  const m = /^Bearer[ ]+([^ ]+)[ ]*$/i.exec(header ?? '');
  return m?.[1] ?? null;
}

/** The identity a token stands for: a fleet-config token first, then the cluster's TokenReview; null for neither. */
export async function identify(auth: Authenticators, token: string): Promise<Identity | null> {
  const granted = authenticateToken(auth.tokens, token);
  if (granted !== null || auth.review === null) return granted;
  try {
    return await auth.review(token);
  } catch (e) {
    if (e instanceof TokenReviewError)
      throw new ApiError(503, 'TokenReviewUnavailable', `tokens cannot be checked now: ${e.message}`, { cause: e });
    throw e;
  }
}

/**
 * Every call under it needs a bearer token that names an identity: no anonymous access. The identity is put on the
 * context for the handlers and for the write log.
 */
export function requireIdentity(auth: Authenticators) {
  return createMiddleware<ConsoleEnv>(async (c, next) => {
    const token = bearerToken(c.req.header('authorization'));
    if (token === null)
      throw new ApiError(401, 'Unauthenticated', 'this call needs an Authorization: Bearer <token> header');
    const identity = await identify(auth, token);
    if (identity === null)
      throw new ApiError(401, 'Unauthenticated', 'the token is unknown, expired or grants no role');
    c.set('identity', identity);
    await next();
  });
}

/** The identity of an authenticated call, when it may do `permission`; a viewer asking to write gets 403. */
export function authorized(identity: Identity, permission: Permission, what: string): Identity {
  if (!allows(identity.role, permission))
    throw new ApiError(403, 'Forbidden', `${identity.name} is a ${identity.role}: only operators may ${what}`);
  return identity;
}
