import type { OperationOutcome } from '@portolan/appliance-driver';
import type { DesiredState, ObjectRef } from '@portolan/desired-state';
import { refKey } from './ingress-status.ts';

/** A Kubernetes Event to create on an object (reason and message from a snapshot condition). */
export interface ObjectEventDraft {
  readonly ref: ObjectRef;
  readonly type: 'Warning' | 'Normal';
  readonly reason: string;
  readonly message: string;
}

/** The de-duplication key of an Event: the same object, reason and message is reported once. */
export function eventKey(e: ObjectEventDraft): string {
  return `${refKey(e.ref)}|${e.type}|${e.reason}|${e.message}`;
}

/** Events for the snapshot's rejected and warned objects (accepted ones get none). */
export function conditionEvents(desired: DesiredState): ObjectEventDraft[] {
  return desired.conditions
    .filter((c) => c.type === 'Rejected' || c.type === 'Warning')
    .map((c) => ({
      ref: c.object,
      type: 'Warning',
      reason: c.reason,
      message: c.type === 'Rejected' ? `rejected by appliance ${desired.appliance}: ${c.message}` : c.message,
    }));
}

/**
 * Events for operations the appliance refused that concern one Kubernetes object: a Service-mode binding whose
 * virtual service is gone (as LoadMaster documents it: the Service gets an Event and nothing is recreated), and a binding's other
 * refusals. Other refused operations are recorded in the apply log and retried.
 */
export function operationEvents(desired: DesiredState, outcomes: readonly OperationOutcome[]): ObjectEventDraft[] {
  const bindings = new Map(desired.bindings.map((b) => [b.target, b.service] as const));
  const out: ObjectEventDraft[] = [];
  for (const o of outcomes) {
    if (o.result.ok || o.operation.objectType !== 'binding') continue;
    const service = bindings.get(o.operation.objectName);
    if (service !== undefined)
      out.push({
        ref: service,
        type: 'Warning',
        reason: o.result.code,
        message: `appliance ${desired.appliance}: ${o.result.message}`,
      });
  }
  return out;
}

/** A removal the planner's safety rule holds (as the store records it). */
export interface HeldRemovalView {
  readonly cluster: string;
  readonly kind: string;
  /** `namespace/name`, or `name` for cluster-scoped kinds. */
  readonly objectKey: string;
  readonly reason: string;
}

const KINDS = new Set<string>(['Ingress', 'IngressClass', 'Service', 'EndpointSlice', 'Secret', 'Node']);

/** A Warning Event on each held object: the appliance keeps it until an approval, a DELETED event or a relist. */
export function holdEvents(appliance: string, holds: readonly HeldRemovalView[]): ObjectEventDraft[] {
  return holds.flatMap((h) => {
    if (!KINDS.has(h.kind)) return [];
    const slash = h.objectKey.indexOf('/');
    const [namespace, name] =
      slash < 0 ? ['', h.objectKey] : [h.objectKey.slice(0, slash), h.objectKey.slice(slash + 1)];
    const ref = { cluster: h.cluster, kind: h.kind as ObjectRef['kind'], namespace, name };
    const message = `appliance ${appliance} keeps serving this object: ${h.reason}. Approve the removal with: portolan approve ${appliance} --reason "..."`;
    return [{ ref, type: 'Warning' as const, reason: 'RemovalHeld', message }];
  });
}

/**
 * The holds this appliance serves. Holds are recorded per cluster, but a held Ingress stays planned as it was, so it is
 * this appliance's only when its current desired state has a condition on it; an Ingress of another class (served by
 * another appliance) gets no Event from this one. Other kinds are not tied to one appliance's conditions and are kept.
 */
export function servedHolds(
  holds: readonly HeldRemovalView[],
  conditions: DesiredState['conditions'],
): HeldRemovalView[] {
  const ingresses = new Set(
    conditions
      .filter((c) => c.object.kind === 'Ingress')
      .map((c) => `${c.object.cluster}/${c.object.namespace}/${c.object.name}`),
  );
  return holds.filter((h) => h.kind !== 'Ingress' || ingresses.has(`${h.cluster}/${h.objectKey}`));
}

/** Events not reported yet, so re-applying the same snapshot does not repeat them. */
export function newEvents(drafts: readonly ObjectEventDraft[], reported: ReadonlySet<string>): ObjectEventDraft[] {
  const seen = new Set<string>();
  return drafts.filter((d) => {
    const k = eventKey(d);
    if (reported.has(k) || seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** A token bucket (client-go's default rate limiter: 5 QPS, burst 10). */
export interface TokenBucket {
  readonly tokens: number;
  readonly updatedAt: number;
}

/** Rate of a token bucket. */
export interface RateLimit {
  readonly qps: number;
  readonly burst: number;
}

/**
 * client-go's EventSourceObjectSpamFilter: per object, a burst of 25 Events, then one every 5 minutes (a flapping
 * condition cannot flood the API server or the object's Event list).
 */
export const EVENT_SPAM_LIMIT: RateLimit = { qps: 1 / 300, burst: 25 };

/** client-go's defaults for one client. */
export const clientGoRateLimit: RateLimit = { qps: 5, burst: 10 };

/** A full bucket at `now`. */
export function fullBucket(limit: RateLimit, now: number): TokenBucket {
  return { tokens: limit.burst, updatedAt: now };
}

/** Takes one token at `now`; when none is left, says how long to wait for the next. */
export function takeToken(
  bucket: TokenBucket,
  limit: RateLimit,
  now: number,
): { ok: true; bucket: TokenBucket } | { ok: false; bucket: TokenBucket; waitMs: number } {
  const refilled = Math.min(limit.burst, bucket.tokens + (Math.max(0, now - bucket.updatedAt) * limit.qps) / 1000);
  if (refilled >= 1) return { ok: true, bucket: { tokens: refilled - 1, updatedAt: now } };
  return {
    ok: false,
    bucket: { tokens: refilled, updatedAt: now },
    waitMs: Math.ceil(((1 - refilled) * 1000) / limit.qps),
  };
}
