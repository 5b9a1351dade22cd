import { objectRefKey, sourcesOf, withoutSources, type DesiredState, type ObjectRef } from '@portolan/desired-state';
import type { ConfigCheck } from './driver.ts';

/** The objects an appliance refuses, each with the appliance's own words about it. */
export interface RefusedSource {
  readonly ref: ObjectRef;
  readonly message: string;
}

/** Upper bound on checks per search (each is a full `haproxy -c` on HAProxy). */
const MAX_CHECKS = 64;

/**
 * Finds the objects that make the appliance refuse a configuration, by bisection against its own check (each half
 * is checked with what is already known to be accepted kept beside it). Returns the culprits — removing them leaves a
 * configuration the appliance accepts — or null when they cannot be isolated (the configuration is refused even
 * without any source, two objects are refused only together beyond the budget, or the check keeps failing).
 */
export async function findRefusedSources(
  desired: DesiredState,
  check: (d: DesiredState) => Promise<ConfigCheck>,
): Promise<RefusedSource[] | null> {
  const all = sourcesOf(desired);
  const keys = all.map(objectRefKey);
  let checks = 0;
  const keepOnly = async (subset: readonly ObjectRef[]): Promise<ConfigCheck> => {
    checks++;
    const keep = new Set(subset.map(objectRefKey));
    return check(withoutSources(desired, new Set(keys.filter((k) => !keep.has(k)))));
  };
  if (!(await keepOnly([])).ok) return null;
  const culprits: RefusedSource[] = [];
  let budgetLeft = true;
  // The culprits within `subset`, given `base` is kept and `base` alone is accepted: after it returns, `base` plus
  // the rest of `subset` is accepted. Two halves that are refused only together yield one of them (enough to fix it).
  const search = async (subset: readonly ObjectRef[], base: readonly ObjectRef[]): Promise<ObjectRef[]> => {
    if (checks >= MAX_CHECKS) {
      budgetLeft = false;
      return [];
    }
    const verdict = await keepOnly([...base, ...subset]);
    if (verdict.ok) return [];
    if (subset.length === 1) {
      culprits.push({ ref: subset[0]!, message: verdict.message });
      return [...subset];
    }
    const half = Math.ceil(subset.length / 2);
    const [left, right] = [subset.slice(0, half), subset.slice(half)];
    const fromLeft = await search(left, base);
    const keptLeft = left.filter((r) => !fromLeft.includes(r));
    const fromRight = await search(right, [...base, ...keptLeft]);
    return [...fromLeft, ...fromRight];
  };
  await search(all, []);
  if (!budgetLeft || culprits.length === 0) return null;
  const rest = await check(withoutSources(desired, new Set(culprits.map((c) => objectRefKey(c.ref)))));
  return rest.ok ? culprits : null;
}
