import { objectKey, RunningDigest, type StateDigest } from '@portolan/kube-model';

/** What the watcher remembers of one published object: enough to recognise "no change" and to publish a delete. */
export interface LedgerEntry {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion: string;
}

/** Identity and version of an observed object. */
export type ObservedObject = LedgerEntry;

/** The published event type a list item calls for, or null when it is already known at this version. */
export type ListItemChange = 'ADDED' | 'MODIFIED' | null;

/**
 * The last published (uid, resourceVersion) of every object of one kind. ResourceVersions are opaque: they are
 * compared for equality only, never ordered (the Kubernetes API concepts say so, and a lagging cache must not look
 * newer). Memory is a few dozen bytes per object, not the objects themselves. Mutable by design: remembering what
 * was published is its purpose, and one stream owns it.
 */
export class ObjectLedger {
  private readonly entries = new Map<string, LedgerEntry>();
  private readonly running = new RunningDigest();

  /** Number of objects known. */
  get size(): number {
    return this.entries.size;
  }

  /** The digest of every known key and version (what the planner's state of the kind should match once settled). */
  get digest(): StateDigest {
    return { digest: this.running.digest, count: this.running.count };
  }

  private set(key: string, o: LedgerEntry, known: LedgerEntry | undefined): void {
    if (known !== undefined) this.running.remove(key, known.resourceVersion);
    this.running.add(key, o.resourceVersion);
    this.entries.set(key, o);
  }

  /**
   * A list item: new → ADDED, changed (other version, or recreated with another uid) → MODIFIED, same → nothing, or
   * MODIFIED again when `republish` is set: the broker may have lost what it acknowledged, so what the ledger says
   * was published cannot be trusted (the stream's dedup window drops the copies it still holds).
   */
  observeListItem(o: ObservedObject, republish = false): ListItemChange {
    const key = objectKey(o.namespace, o.name);
    const known = this.entries.get(key);
    if (known !== undefined && known.uid === o.uid && known.resourceVersion === o.resourceVersion)
      return republish ? 'MODIFIED' : null;
    this.set(key, o, known);
    return known === undefined ? 'ADDED' : 'MODIFIED';
  }

  /** A watch event: false when it repeats what was already published (same uid and version), so it is skipped. */
  observeWatchEvent(type: 'ADDED' | 'MODIFIED' | 'DELETED', o: ObservedObject): boolean {
    const key = objectKey(o.namespace, o.name);
    const known = this.entries.get(key);
    if (type === 'DELETED') {
      if (known === undefined) return false;
      this.entries.delete(key);
      this.running.remove(key, known.resourceVersion);
      return true;
    }
    if (known !== undefined && known.uid === o.uid && known.resourceVersion === o.resourceVersion) return false;
    this.set(key, o, known);
    return true;
  }

  /**
   * After a complete list of one stream (cluster-wide when `namespace` is undefined): forgets and returns every
   * object of that scope the list did not contain — the deletes nobody watched.
   */
  removeUnlisted(namespace: string | undefined, listedKeys: ReadonlySet<string>): LedgerEntry[] {
    const gone: LedgerEntry[] = [];
    for (const [key, entry] of this.entries) {
      if (namespace !== undefined && entry.namespace !== namespace) continue;
      if (!listedKeys.has(key)) gone.push(entry);
    }
    for (const entry of gone) {
      const key = objectKey(entry.namespace, entry.name);
      this.entries.delete(key);
      this.running.remove(key, entry.resourceVersion);
    }
    return gone.sort((a, b) => compare(objectKey(a.namespace, a.name), objectKey(b.namespace, b.name)));
  }

  /** Every known key, sorted by code units (the list marker's content). */
  keys(): string[] {
    return [...this.entries.keys()].sort(compare);
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
