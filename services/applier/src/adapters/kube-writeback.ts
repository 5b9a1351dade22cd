import type { OperationOutcome } from '@portolan/appliance-driver';
import type { DesiredState } from '@portolan/desired-state';
import {
  ingressStatusTargets,
  mergeLoadBalancerIngress,
  refKey,
  type IngressStatusTarget,
  type LoadBalancerIngress,
} from '../core/ingress-status.ts';
import {
  conditionEvents,
  operationEvents,
  eventKey,
  fullBucket,
  holdEvents,
  newEvents,
  servedHolds,
  takeToken,
  clientGoRateLimit,
  type HeldRemovalView,
  type ObjectEventDraft,
  type RateLimit,
  type TokenBucket,
} from '../core/kube-write-plan.ts';
import { gatewayStatusTargets, nextGatewayStatus, type GatewayStatusTarget } from '../core/gateway-status.ts';
import { EventRecorder } from './event-recorder.ts';
import type { KubeApi } from './kube-api.ts';

/** How often a condition that persists is recorded again (its Event's count rises), on the drift timer's rechecks. */
const REPEAT_AFTER_MS = 10 * 60_000;

type Task =
  | { kind: 'status'; target: IngressStatusTarget }
  | { kind: 'gateway-status'; target: GatewayStatusTarget }
  | { kind: 'event'; event: ObjectEventDraft };

/** What the write-back did so far (tests and metrics). */
export interface WritebackCounters {
  statusWrites: number;
  statusSkipped: number;
  /** Events created (a first occurrence). */
  events: number;
  /** Repeats aggregated into an existing Event (count and lastTimestamp raised). */
  eventsAggregated: number;
  /** Events not written: the object no longer exists, or the per-object spam filter refused them. */
  eventsDropped: number;
  failures: number;
  /** Queues dropped because this process no longer led when their turn came. */
  droppedNotLeader: number;
}

/**
 * Ingress status and Kubernetes Events after an apply, per cluster, through a queue drained at client-go's
 * default rate (5 QPS, burst 10) per cluster. Status tasks are keyed by Ingress (the latest wins). A read before each
 * status write skips no-op writes. Events go through an EventRecorder (uid, aggregation, spam filter): a condition is
 * recorded when it appears (again) in the desired state and, while it persists, once per `repeatAfterMs` on rechecks;
 * a refused operation on each failed apply; a held removal once per process.
 */
export class KubeWriteback {
  readonly counters: WritebackCounters = {
    statusWrites: 0,
    statusSkipped: 0,
    events: 0,
    eventsAggregated: 0,
    eventsDropped: 0,
    failures: 0,
    droppedNotLeader: 0,
  };
  private readonly apiFor: (cluster: string) => KubeApi | null;
  private readonly reportingInstance: string;
  private readonly limit: RateLimit;
  private readonly onError: (e: unknown) => void;
  private readonly queues = new Map<string, Map<string, Task>>();
  private readonly buckets = new Map<string, TokenBucket>();
  private readonly draining = new Map<string, Promise<void>>();
  /** Held removals already reported (once per process). */
  private readonly reported = new Set<string>();
  /** Conditions of the last desired state, with when each was last recorded. */
  private active = new Map<string, number>();
  private readonly recorder: EventRecorder;
  private readonly repeatAfterMs: number;
  private readonly ours = new Map<string, { target: IngressStatusTarget }>();
  /** The Gateway API statuses this process last wrote (or found in place), by object, as planned. */
  private readonly gatewayOurs = new Map<string, { ref: GatewayStatusTarget['ref']; status: string }>();
  private closed = false;
  /** Whether this process leads its appliance group now (status and Events are the leader's to write). */
  private readonly isLeader: () => boolean;
  private readonly defaultAddresses: () => readonly string[] | null;
  private lastInputs: {
    virtualServices: DesiredState['virtualServices'];
    conditions: DesiredState['conditions'];
    defaultAddresses: string;
  } | null = null;

  /**
   * `defaultAddresses` reports what the driver last read back for the default address (vTM's default traffic IP
   * group); it is used when the fleet config names no default address.
   */
  constructor(options: {
    apiFor: (cluster: string) => KubeApi | null;
    reportingInstance: string;
    limit?: RateLimit;
    onError?: (e: unknown) => void;
    defaultAddresses?: () => readonly string[] | null;
    repeatAfterMs?: number;
    recorder?: EventRecorder;
    /** Default: always (a process that writes for itself alone). */
    isLeader?: () => boolean;
  }) {
    this.isLeader = options.isLeader ?? (() => true);
    this.recorder = options.recorder ?? new EventRecorder();
    this.repeatAfterMs = options.repeatAfterMs ?? REPEAT_AFTER_MS;
    this.defaultAddresses = options.defaultAddresses ?? (() => null);
    this.apiFor = options.apiFor;
    this.reportingInstance = options.reportingInstance;
    this.limit = options.limit ?? clientGoRateLimit;
    this.onError = options.onError ?? (() => {});
  }

  /**
   * Queues the status of every served Ingress (and clears it on Ingresses no longer served) and new Events. Skipped
   * when listeners and conditions are the same arrays as last time and nothing failed (an endpoint change), unless
   * `recheck` (the drift timer re-reads every status, so an edit by someone else is put right within its period).
   */
  afterApply(
    desired: DesiredState,
    defaultAddress: string | null,
    outcomes: readonly OperationOutcome[] = [],
    recheck = false,
  ): void {
    // Statuses follow the listeners and Events the conditions: when both are the very arrays of the last call (an
    // incrementally read snapshot after an endpoint change) and nothing failed, there is nothing new to write.
    const last = this.lastInputs;
    const addresses = defaultAddress === null ? (this.defaultAddresses() ?? []) : [defaultAddress];
    this.lastInputs = {
      virtualServices: desired.virtualServices,
      conditions: desired.conditions,
      defaultAddresses: addresses.join(' '),
    };
    // A recheck starts only when the last one has drained: at the client's default rate a pass over 10k Ingresses
    // takes half an hour, and statuses are then re-verified as a steady trickle, never a growing backlog.
    if (recheck && this.draining.size > 0) return;
    if (
      !recheck &&
      last !== null &&
      last.virtualServices === desired.virtualServices &&
      last.conditions === desired.conditions &&
      last.defaultAddresses === this.lastInputs.defaultAddresses &&
      outcomes.every((o) => o.result.ok)
    )
      return;
    const targets = ingressStatusTargets(desired, addresses);
    const served = new Set(targets.map((t) => refKey(t.ref)));
    for (const [key, prev] of this.ours) {
      if (!served.has(key))
        this.enqueue(prev.target.ref.cluster, `status:${key}`, {
          kind: 'status',
          target: { ref: prev.target.ref, entries: [] },
        });
    }
    for (const t of targets) {
      // A status this process already wrote is not read again on every change of some other Ingress (at 5 QPS that
      // backlog delayed every Event by seconds); the drift timer's recheck re-reads them all.
      if (!recheck && sameEntries(this.ours.get(refKey(t.ref))?.target.entries, t.entries)) continue;
      this.enqueue(t.ref.cluster, `status:${refKey(t.ref)}`, { kind: 'status', target: t });
    }
    const planned = gatewayStatusTargets(desired, addresses);
    const still = new Set(planned.map((t) => refKey(t.ref)));
    for (const [key, { ref, status }] of this.gatewayOurs)
      if (!still.has(key)) {
        // A route this appliance no longer serves: the parents it wrote are withdrawn (others' stay).
        const withdrawn = withdrawal(ref, status);
        if (withdrawn === null) this.gatewayOurs.delete(key);
        else this.enqueue(ref.cluster, `gateway-status:${key}`, { kind: 'gateway-status', target: withdrawn });
      }
    for (const t of planned) {
      if (!recheck && this.gatewayOurs.get(refKey(t.ref))?.status === JSON.stringify(t.status)) continue;
      this.enqueue(t.ref.cluster, `gateway-status:${refKey(t.ref)}`, { kind: 'gateway-status', target: t });
    }
    this.recordConditions(conditionEvents(desired), recheck);
    for (const e of newEvents(operationEvents(desired, outcomes), new Set()))
      this.enqueue(e.ref.cluster, `event:${eventKey(e)}`, { kind: 'event', event: e });
  }

  /** New (or returning) conditions are recorded now; persisting ones again on a recheck once `repeatAfterMs` passed. */
  private recordConditions(drafts: readonly ObjectEventDraft[], recheck: boolean): void {
    const now = Date.now();
    const next = new Map<string, number>();
    for (const e of newEvents(drafts, new Set())) {
      const key = eventKey(e);
      const last = this.active.get(key);
      const due = last === undefined || (recheck && now - last >= this.repeatAfterMs);
      next.set(key, due ? now : last);
      if (due) this.enqueue(e.ref.cluster, `event:${key}`, { kind: 'event', event: e });
    }
    this.active = next;
  }

  /** Queues a Warning Event on each removal the safety rule holds for this appliance (once per hold and process). */
  reportHolds(appliance: string, holds: readonly HeldRemovalView[]): void {
    // Until the first apply this appliance's Ingresses are unknown: their holds are reported on a later call.
    const mine = servedHolds(holds, this.lastInputs?.conditions ?? []);
    for (const e of newEvents(holdEvents(appliance, mine), this.reported)) {
      this.reported.add(eventKey(e));
      this.enqueue(e.ref.cluster, `event:${eventKey(e)}`, { kind: 'event', event: e });
    }
  }

  /** Queues Events for refused operations of an apply that did not land (no status is written for it). */
  reportRefusals(desired: DesiredState, outcomes: readonly OperationOutcome[]): void {
    for (const e of newEvents(operationEvents(desired, outcomes), new Set()))
      this.enqueue(e.ref.cluster, `event:${eventKey(e)}`, { kind: 'event', event: e });
  }

  /** Resolves when every queue has drained (tests). */
  async settled(): Promise<void> {
    while (this.draining.size > 0) await Promise.all(this.draining.values());
  }

  /** Stops draining; queued writes are dropped (the next leader writes them again). */
  close(): void {
    this.closed = true;
  }

  private enqueue(cluster: string, key: string, task: Task): void {
    const q = this.queues.get(cluster) ?? new Map<string, Task>();
    q.delete(key);
    q.set(key, task);
    this.queues.set(cluster, q);
    if (!this.draining.has(cluster)) {
      this.draining.set(
        cluster,
        this.drain(cluster).finally(() => this.draining.delete(cluster)),
      );
    }
  }

  private async drain(cluster: string): Promise<void> {
    const q = this.queues.get(cluster)!;
    const api = this.apiFor(cluster);
    while (q.size > 0 && !this.closed) {
      const [key, task] = q.entries().next().value as [string, Task];
      q.delete(key);
      if (api === null) continue;
      try {
        // An Event costs one to three calls (uid, lookup, write): the recorder takes a token before each.
        if (task.kind === 'status') await this.waitForToken(cluster);
        // A queue outlives a lost lease (at 5 writes a second, 10k statuses take half an hour): what is left is
        // dropped, and the new leader writes it again, so two replicas never write the same objects at once.
        if (!this.isLeader()) {
          q.clear();
          this.counters.droppedNotLeader++;
          break;
        }
        await this.run(api, cluster, task);
      } catch (e) {
        // Status and Events are best effort and never hold up an apply: the failure is counted and reported, and
        // the next apply or drift period writes again.
        this.counters.failures++;
        this.onError(e);
      }
    }
  }

  private async waitForToken(cluster: string): Promise<void> {
    for (;;) {
      const now = performance.now();
      const r = takeToken(this.buckets.get(cluster) ?? fullBucket(this.limit, now), this.limit, now);
      this.buckets.set(cluster, r.bucket);
      if (r.ok) return;
      await new Promise((resolve) => setTimeout(resolve, r.waitMs));
    }
  }

  private async run(api: KubeApi, cluster: string, task: Task): Promise<void> {
    if (task.kind === 'event') {
      const outcome = await this.recorder.record(api, task.event, this.reportingInstance, () =>
        this.waitForToken(cluster),
      );
      if (outcome === 'created') this.counters.events++;
      else if (outcome === 'aggregated') this.counters.eventsAggregated++;
      else this.counters.eventsDropped++;
      return;
    }
    if (task.kind === 'gateway-status') return this.writeGatewayStatus(api, task.target);
    const { ref, entries } = task.target;
    const key = refKey(ref);
    const current = await api.readIngressStatus(ref.namespace, ref.name);
    if (current === null) {
      this.ours.delete(key);
      return;
    }
    if (current.uid !== undefined) this.recorder.noteUid(ref, current.uid);
    const previous: readonly LoadBalancerIngress[] = this.ours.get(key)?.target.entries ?? [];
    const merged = mergeLoadBalancerIngress(current.entries, previous, entries);
    if (merged === null) this.counters.statusSkipped++;
    else {
      await this.waitForToken(ref.cluster);
      await api.patchIngressStatus(ref.namespace, ref.name, current.resourceVersion, merged);
      this.counters.statusWrites++;
    }
    if (entries.length === 0) this.ours.delete(key);
    else this.ours.set(key, { target: task.target });
  }

  /** Writes a Gateway API object's status when it differs from what the object carries (timestamps kept). */
  private async writeGatewayStatus(api: KubeApi, target: GatewayStatusTarget): Promise<void> {
    const key = refKey(target.ref);
    const current = await api.readGatewayStatus(target.ref);
    if (current === null) {
      this.gatewayOurs.delete(key);
      return;
    }
    const next = nextGatewayStatus(
      target.ref.kind,
      current.status,
      target.status,
      new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
      target.withdraw,
    );
    if (next === null) this.counters.statusSkipped++;
    else {
      await this.waitForToken(target.ref.cluster);
      await api.patchGatewayStatus(target.ref, current.resourceVersion, next);
      this.counters.statusWrites++;
    }
    if (target.withdraw === undefined)
      this.gatewayOurs.set(key, { ref: target.ref, status: JSON.stringify(target.status) });
    else this.gatewayOurs.delete(key);
  }
}

/** The task withdrawing the route parents a previous status named (null for kinds whose status is not shared). */
function withdrawal(ref: GatewayStatusTarget['ref'], status: string): GatewayStatusTarget | null {
  if (!ref.kind.endsWith('Route')) return null;
  const parents = (JSON.parse(status) as { parents?: { controllerName?: unknown }[] }).parents ?? [];
  const controllers = [...new Set(parents.map((p) => String(p.controllerName)))];
  return { ref, status: { parents: [] }, withdraw: controllers };
}

/** Whether two status entry lists say the same (same order: both come from one canonical render). */
function sameEntries(a: readonly LoadBalancerIngress[] | undefined, b: readonly LoadBalancerIngress[]): boolean {
  return a !== undefined && a.length === b.length && a.every((e, i) => JSON.stringify(e) === JSON.stringify(b[i]));
}
