import { InternalError } from '@portolan/errors';
import {
  badRequest,
  fail,
  ok,
  tooLargeResourceVersion,
  tooOldResourceVersion,
  type ApiResult,
} from '../core/api-error.ts';
import { decodeContinueToken, encodeContinueToken } from '../core/continue-token.ts';
import { filteredEventType, matchesSelectors, type ObjectFilter } from '../core/watch-filter.ts';
import {
  objectKeyOf,
  resourceKeyOf,
  resourceTypes,
  type KubeObject,
  type ResourceType,
} from '../core/resource-types.ts';
import {
  firstEventAfter,
  lowerBound,
  sortedKeysOf,
  type ChangeEvent,
  type Collection,
  type WatchEventType,
  type WatchSubscriber,
} from './collection.ts';

/** One entry of the change log, the test oracle: every committed change in order. */
export interface ChangeLogEntry {
  readonly rv: string;
  readonly type: WatchEventType;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

/** A list request after query parsing. */
export interface ListQuery extends ObjectFilter {
  readonly limit?: number;
  readonly continueToken?: string;
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: string;
}

/** A list answer: items in etcd key order and the list metadata. */
export interface ListResult {
  readonly items: KubeObject[];
  readonly resourceVersion: string;
  readonly continue?: string;
  readonly remainingItemCount?: number;
}

/** A watch request after query parsing. */
export interface WatchQuery extends ObjectFilter {
  readonly resourceVersion?: string;
}

/** Options of the store. */
export interface ObjectStoreOptions {
  /** History beyond this many changes is compacted automatically (etcd keeps a bounded window too). */
  readonly maxHistory?: number;
}

interface Snapshot {
  readonly rv: number;
  readonly objects: Map<string, Map<string, KubeObject>>;
}

type StateView = { readonly keys: readonly string[]; get(key: string): KubeObject | undefined };

/**
 * The simulator's etcd + watch cache: objects per resource type, one global resourceVersion counter,
 * a retained change history (compactable), watch fan-out and the change log.
 */
export class ObjectStore {
  readonly changeLog: ChangeLogEntry[] = [];
  private readonly collections = new Map<string, Collection>();
  private readonly commitListeners = new Set<(event: ChangeEvent) => void>();
  private readonly maxHistory: number;
  private rv = 0;
  private compacted = 0;
  private lagging: Snapshot | null = null;
  /** Lists omit the objects these rules match (a fault: a list that loses objects without any delete). */
  private hiddenFromLists: readonly ListHiding[] = [];

  constructor(options: ObjectStoreOptions = {}) {
    this.maxHistory = options.maxHistory ?? 200_000;
    // The versions of one resource share its collection, whose type is the storage version (listed first).
    for (const type of resourceTypes) {
      if (this.collections.has(resourceKeyOf(type))) continue;
      this.collections.set(resourceKeyOf(type), {
        type,
        objects: new Map(),
        sortedKeys: null,
        history: [],
        watchers: new Set(),
      });
    }
  }

  /** The latest committed resourceVersion. */
  get resourceVersion(): number {
    return this.rv;
  }

  /** Changes at or below this resourceVersion are no longer retained (watching from older gives 410). */
  get compactedRevision(): number {
    return this.compacted;
  }

  /** The collection of a served resource type. */
  collection(type: ResourceType): Collection {
    const col = this.collections.get(resourceKeyOf(type));
    if (col === undefined)
      throw new InternalError('KUBE_SIM_UNKNOWN_RESOURCE_TYPE', `unknown resource type ${resourceKeyOf(type)}`);
    return col;
  }

  /** Subscribes to every commit (persistence, metrics); returns the unsubscribe function. */
  onCommit(listener: (event: ChangeEvent) => void): () => void {
    this.commitListeners.add(listener);
    return () => this.commitListeners.delete(listener);
  }

  /** The current object, or undefined. */
  get(type: ResourceType, namespace: string, name: string): KubeObject | undefined {
    return this.collection(type).objects.get(objectKeyOf(type.namespaced ? namespace : '', name));
  }

  /** Stores a change under the next resourceVersion, records it and fans it out to matching watchers. */
  commit(
    type: ResourceType,
    eventType: WatchEventType,
    namespace: string,
    name: string,
    next: KubeObject | undefined,
  ): ChangeEvent {
    const col = this.collection(type);
    const key = objectKeyOf(namespace, name);
    const previous = col.objects.get(key);
    const base = next ?? previous;
    if (base === undefined)
      throw new InternalError('KUBE_SIM_COMMIT_WITHOUT_OBJECT', `commit of ${eventType} ${key} without an object`);
    const rv = ++this.rv;
    const object: KubeObject = { ...base, metadata: { ...base.metadata, resourceVersion: String(rv) } };
    if (eventType === 'DELETED') col.objects.delete(key);
    else col.objects.set(key, object);
    if (eventType !== 'MODIFIED') col.sortedKeys = null;
    const event: ChangeEvent = { rv, type: eventType, key, namespace, object, previous };
    col.history.push(event);
    this.changeLog.push({
      rv: String(rv),
      type: eventType,
      kind: type.kind,
      namespace,
      name,
      uid: object.metadata?.uid ?? '',
    });
    for (const watcher of col.watchers) this.dispatch(watcher, event);
    for (const listener of this.commitListeners) listener(event);
    if (this.rv - this.compacted > this.maxHistory * 1.1) this.compact(this.rv - this.maxHistory);
    return event;
  }

  private dispatch(watcher: WatchSubscriber, event: ChangeEvent): void {
    const type = filteredEventType(watcher, event.type, event.namespace, event.object, event.previous);
    if (type !== null) watcher.deliver(type, event);
  }

  /** Forgets history up to and including toRv (default: everything); older watches and continue tokens then get 410. */
  compact(toRv: number = this.rv): void {
    const target = Math.min(Math.max(toRv, this.compacted), this.rv);
    for (const col of this.collections.values()) {
      const cut = firstEventAfter(col.history, target);
      if (cut > 0) col.history = col.history.slice(cut);
    }
    this.compacted = target;
  }

  /** Makes lists omit the objects of a resource (plural) in a namespace ('' = every namespace); [] ends it. */
  setHiddenFromLists(rules: readonly ListHiding[]): void {
    this.hiddenFromLists = rules;
  }

  private isHiddenFromLists(type: ResourceType, obj: KubeObject): boolean {
    const ns = obj.metadata?.namespace ?? '';
    return this.hiddenFromLists.some((h) => h.resource === type.plural && (h.namespace === '' || h.namespace === ns));
  }

  /** Freezes the state that `resourceVersion=0` lists see (a lagging watch cache) until cleared. */
  setLaggingZeroReads(enabled: boolean): void {
    if (!enabled) {
      this.lagging = null;
      return;
    }
    const objects = new Map<string, Map<string, KubeObject>>();
    for (const [key, col] of this.collections) objects.set(key, new Map(col.objects));
    this.lagging = { rv: this.rv, objects };
  }

  private currentView(col: Collection): StateView {
    return { keys: sortedKeysOf(col), get: (k) => col.objects.get(k) };
  }

  private viewAt(col: Collection, rv: number): StateView {
    if (rv >= this.rv) return this.currentView(col);
    const overrides = new Map<string, KubeObject | undefined>();
    for (let i = col.history.length - 1; i >= 0; i--) {
      const event = col.history[i];
      if (event === undefined || event.rv <= rv) break;
      overrides.set(event.key, event.previous);
    }
    if (overrides.size === 0) return this.currentView(col);
    const get = (k: string): KubeObject | undefined => (overrides.has(k) ? overrides.get(k) : col.objects.get(k));
    const keys = [...new Set([...sortedKeysOf(col), ...overrides.keys()])].filter((k) => get(k) !== undefined).sort();
    return { keys, get };
  }

  private laggingView(col: Collection): StateView | null {
    const objects = this.lagging?.objects.get(resourceKeyOf(col.type));
    if (objects === undefined) return null;
    return { keys: [...objects.keys()].sort(), get: (k) => objects.get(k) };
  }

  private parseRv(text: string): number | null {
    return /^\d+$/.test(text) ? Number(text) : null;
  }

  /** Picks the state a list reads: current, an exact past revision, a continue token's revision, or the lagging cache. */
  private listView(
    col: Collection,
    query: ListQuery,
  ): ApiResult<{ view: StateView; rv: number; start: string | null }> {
    if (query.continueToken !== undefined && query.continueToken !== '') {
      if (query.resourceVersion !== undefined && query.resourceVersion !== '')
        return fail(badRequest('specifying resource version is not allowed when using continue'));
      const token = decodeContinueToken(query.continueToken);
      if (token === null)
        return fail(
          badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)'),
        );
      if (token.rv < this.compacted) return fail(this.expiredContinue(token.start));
      return ok({ view: this.viewAt(col, token.rv), rv: token.rv, start: token.start });
    }
    const text = query.resourceVersion ?? '';
    if (text === '') return ok({ view: this.currentView(col), rv: this.rv, start: null });
    const requested = this.parseRv(text);
    if (requested === null) return fail(badRequest(`invalid resource version: ${text}`));
    if (requested === 0 && query.resourceVersionMatch !== 'Exact') {
      const lagging = this.laggingView(col);
      return ok(
        lagging === null
          ? { view: this.currentView(col), rv: this.rv, start: null }
          : { view: lagging, rv: this.lagging?.rv ?? this.rv, start: null },
      );
    }
    if (requested > this.rv) return fail(tooLargeResourceVersion(requested, this.rv));
    const exact =
      query.resourceVersionMatch === 'Exact' ||
      (query.resourceVersionMatch === undefined && query.limit !== undefined && query.limit > 0);
    if (!exact) return ok({ view: this.currentView(col), rv: this.rv, start: null });
    if (requested < this.compacted) return fail(tooOldResourceVersion(requested, this.compacted));
    return ok({ view: this.viewAt(col, requested), rv: requested, start: null });
  }

  private expiredContinue(start: string) {
    return {
      code: 410,
      reason: 'Expired' as const,
      message:
        'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
      metadata: { continue: encodeContinueToken(this.rv, start) },
    };
  }

  /** Lists objects with selectors, pagination (limit/continue) and resourceVersion semantics of the API server. */
  list(type: ResourceType, query: ListQuery): ApiResult<ListResult> {
    const col = this.collection(type);
    const picked = this.listView(col, query);
    if (!picked.ok) return picked;
    const { view, rv, start } = picked.value;
    const prefix = type.namespaced && query.namespace !== '' ? `${query.namespace}/` : '';
    const from = start === null ? lowerBound(view.keys, prefix, true) : lowerBound(view.keys, start, false);
    const limit = query.limit !== undefined && query.limit > 0 ? query.limit : Number.POSITIVE_INFINITY;
    const items: KubeObject[] = [];
    let i = from;
    for (; i < view.keys.length; i++) {
      const key = view.keys[i] ?? '';
      if (!key.startsWith(prefix)) break;
      const obj = view.get(key);
      if (obj === undefined || !matchesSelectors(query, obj)) continue;
      if (this.hiddenFromLists.length > 0 && this.isHiddenFromLists(type, obj)) continue;
      if (items.length === limit) break;
      items.push(obj);
    }
    const more = i < view.keys.length && (view.keys[i] ?? '').startsWith(prefix) && items.length === limit;
    const lastKey =
      items.length > 0
        ? objectKeyOf(
            type.namespaced ? (items[items.length - 1]?.metadata?.namespace ?? '') : '',
            items[items.length - 1]?.metadata?.name ?? '',
          )
        : '';
    const unfiltered = query.labels.length === 0 && query.fields.length === 0;
    const remaining = more && unfiltered ? this.countWithPrefix(view.keys, i, prefix) : undefined;
    return ok({
      items,
      resourceVersion: String(rv),
      ...(more ? { continue: encodeContinueToken(rv, lastKey) } : {}),
      ...(remaining !== undefined ? { remainingItemCount: remaining } : {}),
    });
  }

  private countWithPrefix(keys: readonly string[], from: number, prefix: string): number {
    if (prefix === '') return keys.length - from;
    return lowerBound(keys, `${prefix.slice(0, -1)}0`, true) - from;
  }

  /**
   * Starts a watch: replays the current state as ADDED (no resourceVersion, or "0") or the retained changes after
   * the given resourceVersion, then delivers live changes. Fails with 410 when that history is compacted.
   */
  watch(type: ResourceType, query: WatchQuery, subscriber: WatchSubscriber): ApiResult<() => void> {
    const col = this.collection(type);
    const text = query.resourceVersion ?? '';
    if (text === '' || text === '0') {
      const view = this.currentView(col);
      const prefix = type.namespaced && query.namespace !== '' ? `${query.namespace}/` : '';
      for (let i = lowerBound(view.keys, prefix, true); i < view.keys.length; i++) {
        const key = view.keys[i] ?? '';
        if (!key.startsWith(prefix)) break;
        const object = view.get(key);
        if (object === undefined || !matchesSelectors(query, object)) continue;
        subscriber.deliver('ADDED', {
          rv: Number(object.metadata?.resourceVersion ?? 0),
          type: 'ADDED',
          key,
          namespace: object.metadata?.namespace ?? '',
          object,
          previous: undefined,
        });
      }
    } else {
      const requested = this.parseRv(text);
      if (requested === null) return fail(badRequest(`invalid resource version: ${text}`));
      if (requested < this.compacted) return fail(tooOldResourceVersion(requested, this.compacted + 1));
      if (requested > this.rv) return fail(tooLargeResourceVersion(requested, this.rv));
      for (let i = firstEventAfter(col.history, requested); i < col.history.length; i++) {
        const event = col.history[i];
        if (event !== undefined) this.dispatch(subscriber, event);
      }
    }
    col.watchers.add(subscriber);
    return ok(() => col.watchers.delete(subscriber));
  }

  /** Every stored object of every type (persistence, debugging). */
  allObjects(): KubeObject[] {
    return [...this.collections.values()].flatMap((col) =>
      sortedKeysOf(col)
        .map((k) => col.objects.get(k))
        .filter((o) => o !== undefined),
    );
  }

  /** Loads objects as they are (resourceVersions included) and sets the counter; history starts compacted at rv. */
  restore(objects: readonly KubeObject[], rv: number, typeOf: (obj: KubeObject) => ResourceType | undefined): void {
    for (const obj of objects) {
      const type = typeOf(obj);
      if (type === undefined) continue;
      const col = this.collection(type);
      col.objects.set(
        objectKeyOf(type.namespaced ? (obj.metadata?.namespace ?? '') : '', obj.metadata?.name ?? ''),
        obj,
      );
      col.sortedKeys = null;
    }
    this.rv = Math.max(this.rv, rv);
    this.compact(this.rv);
  }
}

/** Objects a faulty list leaves out: one resource (plural), in one namespace or ('' ) in all. */
export interface ListHiding {
  readonly resource: string;
  readonly namespace: string;
}
