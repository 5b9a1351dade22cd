import {
  noChallenges,
  pendingChallenges,
  withOrderChallenges,
  type ChallengeSet,
  type PendingChallenge,
} from './core/challenge-set.ts';

/**
 * The process's pending HTTP-01 challenges: orders put theirs in and take them out; the vTM driver reads the
 * union at every render (`VtmDriverOptions.acmeChallenges: () => store.list()`).
 */
export class ChallengeStore {
  #set: ChallengeSet = noChallenges;

  /** Every pending challenge, one per token, sorted by token. */
  list(): PendingChallenge[] {
    return pendingChallenges(this.#set);
  }

  /** Replaces the challenges of one order (an empty list removes them). */
  set(order: string, challenges: readonly PendingChallenge[]): void {
    this.#set = withOrderChallenges(this.#set, order, challenges);
  }
}
