// Maps of maps (or sets) that create inner collections on demand and drop them when emptied: the engine's indexes.

/** The inner map under `key`, created when missing. */
export function bucketOf<K, V>(m: Map<string, Map<K, V>>, key: string): Map<K, V> {
  let b = m.get(key);
  if (b === undefined) m.set(key, (b = new Map()));
  return b;
}

/** The set under `key`, created when missing. */
export function bucketOfSet(m: Map<string, Set<string>>, key: string): Set<string> {
  let b = m.get(key);
  if (b === undefined) m.set(key, (b = new Set()));
  return b;
}

/** Removes `key` from the inner map under `bucket`, dropping the inner map once empty. */
export function dropFrom<V>(m: Map<string, Map<string, V>>, bucket: string, key: string): void {
  const b = m.get(bucket);
  b?.delete(key);
  if (b?.size === 0) m.delete(bucket);
}
