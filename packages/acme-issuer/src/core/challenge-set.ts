import { compareCodeUnits } from '@portolan/desired-state';

/**
 * The HTTP-01 challenges pending across orders, as immutable data: each order (keyed by its Secret) adds its
 * challenges while it waits for validation and removes them when it ends, whatever the outcome. What the
 * traffic manager must answer is the union, one answer per token.
 */

/** One pending HTTP-01 challenge. `keyAuthorization` is public by design (RFC 8555 §8.3), not a secret. */
export interface PendingChallenge {
  readonly token: string;
  readonly keyAuthorization: string;
  /** The DNS name being validated (for logs and events). */
  readonly host: string;
}

/** Pending challenges by order key. */
export type ChallengeSet = ReadonlyMap<string, readonly PendingChallenge[]>;

/** An empty set. */
export const noChallenges: ChallengeSet = new Map();

/** The set with `order`'s challenges replaced by `challenges` (an empty list removes the order). */
export function withOrderChallenges(
  set: ChallengeSet,
  order: string,
  challenges: readonly PendingChallenge[],
): ChallengeSet {
  const next = new Map(set);
  if (challenges.length === 0) next.delete(order);
  else next.set(order, [...challenges]);
  return next;
}

/** Every pending challenge, one per token (the earliest order by key wins a token clash), sorted by token. */
export function pendingChallenges(set: ChallengeSet): PendingChallenge[] {
  const byToken = new Map<string, PendingChallenge>();
  for (const order of [...set.keys()].sort(compareCodeUnits)) {
    for (const c of set.get(order) ?? []) if (!byToken.has(c.token)) byToken.set(c.token, c);
  }
  return [...byToken.values()].sort((a, b) => compareCodeUnits(a.token, b.token));
}
