import type { ObjectRef } from '@portolan/desired-state';
import { refKey } from '../core/ingress-status.ts';
import {
  eventKey,
  EVENT_SPAM_LIMIT,
  fullBucket,
  takeToken,
  type ObjectEventDraft,
  type RateLimit,
  type TokenBucket,
} from '../core/kube-write-plan.ts';
import type { KubeApi, RecordedEvent } from './kube-api.ts';

/** How long an object's uid is trusted before it is read again (an object re-created under its name gets a new one). */
const UID_TTL_MS = 5 * 60_000;

/** What recording one Event did. */
export type RecordOutcome = 'created' | 'aggregated' | 'object-gone' | 'spam-filtered';

/**
 * Records Events the way client-go's EventRecorder does, so `kubectl describe` shows them as users expect: on the
 * object's uid (read from the API server and cached; no Event for an object that no longer exists), a repeat of the
 * same object, type, reason, message and source raising `count` and `lastTimestamp` of the one Event (found again
 * after a restart by a field-selected list), and at most 25 Events per object at once, then one per 5 minutes.
 * `pace` takes one token of the cluster's client rate limit before each API call.
 */
export class EventRecorder {
  private readonly uids = new Map<string, { uid: string; readAt: number }>();
  private readonly series = new Map<string, RecordedEvent>();
  private readonly spam = new Map<string, TokenBucket>();
  private readonly spamLimit: RateLimit;
  private readonly now: () => number;

  constructor(options: { spamLimit?: RateLimit; now?: () => number } = {}) {
    this.spamLimit = options.spamLimit ?? EVENT_SPAM_LIMIT;
    this.now = options.now ?? Date.now;
  }

  /** Records one occurrence of the Event on its object. */
  async record(
    api: KubeApi,
    event: ObjectEventDraft,
    reportingInstance: string,
    pace: () => Promise<void>,
  ): Promise<RecordOutcome> {
    const objectKey = refKey(event.ref);
    const now = this.now();
    const bucket = takeToken(this.spam.get(objectKey) ?? fullBucket(this.spamLimit, now), this.spamLimit, now);
    this.spam.set(objectKey, bucket.bucket);
    if (!bucket.ok) return 'spam-filtered';
    const uid = await this.uidOf(api, event.ref, pace);
    if (uid === null) return 'object-gone';
    // The series is per object incarnation: a re-created object starts its own.
    const key = `${uid}|${eventKey(event)}`;
    let known = this.series.get(key) ?? null;
    if (known === null) {
      await pace();
      known = await api.findEvent(event, uid);
    }
    if (known !== null) {
      await pace();
      if (await api.patchEventCount(known.namespace, known.name, known.count + 1, new Date(now))) {
        this.series.set(key, { ...known, count: known.count + 1 });
        return 'aggregated';
      }
    }
    // First occurrence, or its Event expired (the API server's event TTL) or was deleted: a new series.
    await pace();
    this.series.set(key, await api.createEvent(event, uid, reportingInstance, new Date(now)));
    return 'created';
  }

  /** Remembers a uid read elsewhere (the status write reads the Ingress anyway). */
  noteUid(ref: ObjectRef, uid: string): void {
    this.uids.set(refKey(ref), { uid, readAt: this.now() });
  }

  private async uidOf(api: KubeApi, ref: ObjectRef, pace: () => Promise<void>): Promise<string | null> {
    const key = refKey(ref);
    const cached = this.uids.get(key);
    if (cached !== undefined && this.now() - cached.readAt < UID_TTL_MS) return cached.uid;
    await pace();
    const uid = await api.readUid(ref);
    if (uid === null) this.uids.delete(key);
    else this.uids.set(key, { uid, readAt: this.now() });
    return uid;
  }
}
