/**
 * The digest of one kind's state in one cluster: the XOR of a 32-bit FNV-1a hash of every present object's key and
 * resourceVersion, with the number of objects. The watcher keeps it over what it published and the planner over
 * what it folded; both sides update it in O(1) per change, and a lost message makes them differ (two states that
 * differ yet share a digest have a chance of one in 2^32).
 */
export interface StateDigest {
  readonly digest: number;
  readonly count: number;
}

/** The hash of one object's entry: its key ("namespace/name" or "name") and resourceVersion. */
export function entryHash(key: string, resourceVersion: string): number {
  let h = 0x811c9dc5;
  h = fnv(h, key);
  h = Math.imul(h ^ 0, 0x01000193) >>> 0; // a separator no key or version contains: "a/b"+"1" differs from "a/b1"+""
  return fnv(h, resourceVersion);
}

function fnv(seed: number, s: string): number {
  let h = seed;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** A digest kept up to date as objects come, change and go. Mutable by design: it is a running fold. */
export class RunningDigest implements StateDigest {
  digest = 0;
  count = 0;

  /** An object appears (`add`) or disappears (`remove`) at this version. */
  add(key: string, resourceVersion: string): void {
    this.digest = (this.digest ^ entryHash(key, resourceVersion)) >>> 0;
    this.count++;
  }

  remove(key: string, resourceVersion: string): void {
    this.digest = (this.digest ^ entryHash(key, resourceVersion)) >>> 0;
    this.count--;
  }
}
