/** Something several objects ask for; `order` is the creation order key (unique per object). */
export interface Claim {
  readonly order: string;
}

/**
 * The conflict rule: the oldest claim wins whatever the event order; claims asking for the same thing
 * as the winner (`same`) are merged with it; the rest lose. One object never has two claims in one contest, and
 * order keys are unique per object, so there are no ties.
 */
export function pickOldest<C extends Claim>(
  claims: readonly C[],
  same: (a: C, b: C) => boolean,
): { winner: C; merged: C[]; losers: C[] } | null {
  if (claims.length === 0) return null;
  let winner = claims[0]!;
  for (const c of claims) if (c.order < winner.order) winner = c;
  const merged: C[] = [];
  const losers: C[] = [];
  for (const c of claims) {
    if (c === winner) continue;
    (same(c, winner) ? merged : losers).push(c);
  }
  return { winner, merged, losers };
}
