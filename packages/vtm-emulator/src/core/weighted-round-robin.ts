/**
 * Smooth weighted round robin (the interleaving nginx and vTM's `weighted_round_robin` aim for): over any run of
 * `sum(weights)` consecutive picks, node i is chosen exactly `weights[i]` times, spread out rather than in bursts
 * (weights 5/1/1 pick a a b a c a a, not a a a a a b c). Pure: the pick is a function of its position, so the
 * data plane's request counter is the only state.
 */

/** The index of the node chosen at position `pick` of the weighted sequence; weights below 1 count as 1. */
export function pickWeighted(weights: readonly number[], pick: number): number {
  const w = weights.map((x) => Math.max(1, Math.round(x)));
  const divisor = w.reduce(gcd, 0);
  const reduced = w.map((x) => x / divisor);
  const total = reduced.reduce((a, b) => a + b, 0);
  const steps = (((pick % total) + total) % total) + 1;
  const current = reduced.map(() => 0);
  let chosen = 0;
  for (let step = 0; step < steps; step += 1) {
    chosen = 0;
    for (let i = 0; i < reduced.length; i += 1) {
      current[i] = (current[i] as number) + (reduced[i] as number);
      if ((current[i] as number) > (current[chosen] as number)) chosen = i;
    }
    current[chosen] = (current[chosen] as number) - total;
  }
  return chosen;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}
