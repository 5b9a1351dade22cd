import type { ApiError } from '../core/api-error.ts';
import { qualifiedResourceOf, type ResourceType } from '../core/resource-types.ts';
import type { ObjectStore } from '../store/object-store.ts';
import type { WatchStream } from './watch-stream.ts';

/** The API verbs a request failure rule can target. */
export type ApiVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** Fail the next `count` requests to one resource (plural, e.g. `endpointslices`, or `*`) with an HTTP status. */
export interface RequestFailure {
  readonly resource: string;
  readonly status: 403 | 404 | 409 | 410 | 429 | 500 | 503 | 504;
  readonly count: number;
  readonly verbs?: readonly ApiVerb[];
  readonly retryAfterSeconds?: number;
}

/** Which open watches a watch fault applies to (all when no resource is given). */
export interface WatchTarget {
  readonly resource?: string;
}

const reasons: Readonly<Record<RequestFailure['status'], ApiError['reason']>> = {
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  410: 'Expired',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

function failureError(rule: RequestFailure, type: ResourceType, verb: ApiVerb, namespace: string): ApiError {
  const resource = qualifiedResourceOf(type);
  switch (rule.status) {
    case 403:
      return {
        code: 403,
        reason: 'Forbidden',
        message: `${resource} is forbidden: User "system:serviceaccount:portolan:watcher" cannot ${verb} resource "${type.plural}" in API group "${type.group}" ${namespace === '' ? 'at the cluster scope' : `in the namespace "${namespace}"`}`,
        details: { kind: type.plural, ...(type.group === '' ? {} : { group: type.group }) },
      };
    case 429:
      return {
        code: 429,
        reason: 'TooManyRequests',
        message: 'Too many requests, please try again later.',
        details: { retryAfterSeconds: rule.retryAfterSeconds ?? 1 },
      };
    case 410:
      return { code: 410, reason: 'Expired', message: 'too old resource version (injected)' };
    case 500:
      return { code: 500, reason: 'InternalError', message: 'Internal error occurred: injected fault' };
    default:
      return { code: rule.status, reason: reasons[rule.status], message: `injected ${rule.status} for ${resource}` };
  }
}

/** The fault knobs of a running simulator (library API; the admin endpoint maps onto the same methods). */
export class FaultController {
  /** Responses larger than this are refused with 413, like etcd's request limit (1.5 MiB). */
  maxObjectBytes = 1.5 * 1024 * 1024;
  private readonly store: ObjectStore;
  private readonly streams = new Set<WatchStream>();
  private failures: (RequestFailure & { remaining: number })[] = [];
  private stalled = false;
  private hidden: readonly { resource: string; namespace: string }[] = [];

  constructor(store: ObjectStore) {
    this.store = store;
  }

  /** Registers an open watch so watch faults reach it; it removes itself when closed. */
  track(stream: WatchStream): void {
    this.streams.add(stream);
  }

  /** Forgets a closed watch. */
  untrack(stream: WatchStream): void {
    this.streams.delete(stream);
  }

  /** How many watches are open (for tests and the admin endpoint). */
  get openWatches(): number {
    return this.streams.size;
  }

  /** Whether new and existing watches are currently stalled. */
  get watchesStalled(): boolean {
    return this.stalled;
  }

  private targets(target: WatchTarget = {}): WatchStream[] {
    return [...this.streams].filter((s) => target.resource === undefined || s.type.plural === target.resource);
  }

  /** Compacts the store's history now: watches and continue tokens from older resourceVersions get 410. */
  compactHistory(): void {
    this.store.compact();
  }

  /** Stalls every watch (open and new): the connection stays open and nothing is written, not even bookmarks. */
  stallWatches(): void {
    this.stalled = true;
    for (const s of this.streams) s.stall();
  }

  /** Ends a stall: stalled watches deliver what queued up. */
  resumeWatches(): void {
    this.stalled = false;
    for (const s of this.streams) s.resume();
  }

  /** Ends open watches cleanly (as a server-side timeout would); `reset` destroys the sockets instead. */
  endWatches(target: WatchTarget & { reset?: boolean } = {}): number {
    const hit = this.targets(target);
    for (const s of hit) {
      if (target.reset === true) s.destroy();
      else s.end();
    }
    return hit.length;
  }

  /** Sends an in-stream ERROR event with Status 410 Expired; closes the streams unless close is false. */
  sendWatchGone(target: WatchTarget & { close?: boolean } = {}): number {
    const hit = this.targets(target);
    const error: ApiError = {
      code: 410,
      reason: 'Expired',
      message: `too old resource version: 1 (${this.store.compactedRevision})`,
    };
    for (const s of hit) s.sendError(error, target.close !== false);
    return hit.length;
  }

  /** Writes a line that is not valid JSON into open watches. */
  sendGarbledLine(target: WatchTarget = {}): number {
    const hit = this.targets(target);
    for (const s of hit) s.sendRawLine('{"type":"MODIFIED","object":{"kind":"Garbled","metadata":{"name":');
    return hit.length;
  }

  /** Truncates the next n events of each targeted open watch, so clients lose them. */
  garbleNextEvents(n: number, target: WatchTarget = {}): number {
    const hit = this.targets(target);
    for (const s of hit) s.garbleNextEvents(n);
    return hit.length;
  }

  /** Fails the next requests to a resource with a status (403, 429, 500, …). */
  failRequests(rule: RequestFailure): void {
    this.failures.push({ ...rule, remaining: rule.count });
  }

  /** Serves `resourceVersion=0` lists from a snapshot frozen now (a lagging watch cache), until turned off. */
  lagZeroResourceVersionReads(enabled: boolean): void {
    this.store.setLaggingZeroReads(enabled);
  }

  /**
   * Lists of `resource` leave out the objects of `namespace` ('' = all) from now on, with no DELETED event: what a
   * client sees when an API server's list loses objects. Watches are unaffected; `clear()` ends it.
   */
  hideFromLists(resource: string, namespace: string): void {
    this.hidden = [...this.hidden, { resource, namespace }];
    this.store.setHiddenFromLists(this.hidden);
  }

  /** Clears request failures, stalls, lag and hidden list items. */
  clear(): void {
    this.failures = [];
    this.resumeWatches();
    this.store.setLaggingZeroReads(false);
    this.hidden = [];
    this.store.setHiddenFromLists([]);
  }

  /** Takes one pending injected failure matching the request, or returns null. */
  takeFailure(
    type: ResourceType,
    verb: ApiVerb,
    namespace: string,
  ): { error: ApiError; retryAfterSeconds?: number } | null {
    const rule = this.failures.find(
      (f) =>
        f.remaining > 0 &&
        (f.resource === '*' || f.resource === type.plural) &&
        (f.verbs === undefined || f.verbs.includes(verb)),
    );
    if (rule === undefined) return null;
    rule.remaining--;
    this.failures = this.failures.filter((f) => f.remaining > 0);
    return {
      error: failureError(rule, type, verb, namespace),
      ...(rule.status === 429 ? { retryAfterSeconds: rule.retryAfterSeconds ?? 1 } : {}),
    };
  }
}
