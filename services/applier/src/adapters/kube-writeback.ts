import type { OperationOutcome } from '@portolan/appliance-driver';
import type { DesiredState } from '@portolan/desired-state';
import { ingressStatusTargets, mergeLoadBalancerIngress, refKey, type IngressStatusTarget, type LoadBalancerIngress } from '../core/ingress-status.ts';
import { conditionEvents, operationEvents, eventKey, fullBucket, holdEvents, newEvents, takeToken, clientGoRateLimit, type HeldRemovalView, type ObjectEventDraft, type RateLimit, type TokenBucket } from '../core/kube-write-plan.ts';
import type { KubeApi } from './kube-api.ts';

type Task = { kind: 'status'; target: IngressStatusTarget } | { kind: 'event'; event: ObjectEventDraft };

/** What the write-back did so far (tests and metrics). */
export interface WritebackCounters {
  statusWrites: number;
  statusSkipped: number;
  events: number;
  failures: number;
}

/**
 * Ingress status and Kubernetes Events after an apply, per cluster, through a queue drained at client-go's
 * default rate (5 QPS, burst 10) per cluster. Status tasks are keyed by Ingress (the latest wins), Events by
 * (object, reason, message) and reported once per process. A read before each status write skips no-op writes.
 */
export class KubeWriteback {
  readonly counters: WritebackCounters = { statusWrites: 0, statusSkipped: 0, events: 0, failures: 0 };
  private readonly apiFor: (cluster: string) => KubeApi | null;
  private readonly reportingInstance: string;
  private readonly limit: RateLimit;
  private readonly onError: (e: unknown) => void;
  private readonly queues = new Map<string, Map<string, Task>>();
  private readonly buckets = new Map<string, TokenBucket>();
  private readonly draining = new Map<string, Promise<void>>();
  private readonly reported = new Set<string>();
  private readonly ours = new Map<string, { target: IngressStatusTarget }>();
  private closed = false;
  private readonly defaultAddresses: () => readonly string[] | null;
  private lastInputs: { virtualServices: DesiredState['virtualServices']; conditions: DesiredState['conditions']; defaultAddresses: string } | null = null;

  /**
   * `defaultAddresses` reports what the driver last read back for the default address (vTM's default traffic IP
   * group); it is used when the fleet config names no default address.
   */
  constructor(options: { apiFor: (cluster: string) => KubeApi | null; reportingInstance: string; limit?: RateLimit; onError?: (e: unknown) => void; defaultAddresses?: () => readonly string[] | null }) {
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
  afterApply(desired: DesiredState, defaultAddress: string | null, outcomes: readonly OperationOutcome[] = [], recheck = false): void {
    // Statuses follow the listeners and Events the conditions: when both are the very arrays of the last call (an
    // incrementally read snapshot after an endpoint change) and nothing failed, there is nothing new to write.
    const last = this.lastInputs;
    const addresses = defaultAddress === null ? (this.defaultAddresses() ?? []) : [defaultAddress];
    this.lastInputs = { virtualServices: desired.virtualServices, conditions: desired.conditions, defaultAddresses: addresses.join(' ') };
    // A recheck starts only when the last one has drained: at the client's default rate a pass over 10k Ingresses
    // takes half an hour, and statuses are then re-verified as a steady trickle, never a growing backlog.
    if (recheck && this.draining.size > 0) return;
    if (!recheck && last !== null && last.virtualServices === desired.virtualServices && last.conditions === desired.conditions && last.defaultAddresses === this.lastInputs.defaultAddresses && outcomes.every((o) => o.result.ok)) return;
    const targets = ingressStatusTargets(desired, addresses);
    const served = new Set(targets.map((t) => refKey(t.ref)));
    for (const [key, prev] of this.ours) {
      if (!served.has(key)) this.enqueue(prev.target.ref.cluster, `status:${key}`, { kind: 'status', target: { ref: prev.target.ref, entries: [] } });
    }
    for (const t of targets) this.enqueue(t.ref.cluster, `status:${refKey(t.ref)}`, { kind: 'status', target: t });
    for (const e of newEvents([...conditionEvents(desired), ...operationEvents(desired, outcomes)], this.reported)) {
      this.reported.add(eventKey(e));
      this.enqueue(e.ref.cluster, `event:${eventKey(e)}`, { kind: 'event', event: e });
    }
  }

  /** Queues a Warning Event on each removal the safety rule holds for this appliance (once per hold and process). */
  reportHolds(appliance: string, holds: readonly HeldRemovalView[]): void {
    for (const e of newEvents(holdEvents(appliance, holds), this.reported)) {
      this.reported.add(eventKey(e));
      this.enqueue(e.ref.cluster, `event:${eventKey(e)}`, { kind: 'event', event: e });
    }
  }

  /** Queues Events for refused operations of an apply that did not land (no status is written for it). */
  reportRefusals(desired: DesiredState, outcomes: readonly OperationOutcome[]): void {
    for (const e of newEvents(operationEvents(desired, outcomes), this.reported)) {
      this.reported.add(eventKey(e));
      this.enqueue(e.ref.cluster, `event:${eventKey(e)}`, { kind: 'event', event: e });
    }
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
      this.draining.set(cluster, this.drain(cluster).finally(() => this.draining.delete(cluster)));
    }
  }

  private async drain(cluster: string): Promise<void> {
    const q = this.queues.get(cluster)!;
    const api = this.apiFor(cluster);
    while (q.size > 0 && !this.closed) {
      const [key, task] = q.entries().next().value as [string, Task];
      q.delete(key);
      if (api === null) continue;
      await this.waitForToken(cluster);
      try {
        await this.run(api, task);
      } catch (e) {
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

  private async run(api: KubeApi, task: Task): Promise<void> {
    if (task.kind === 'event') {
      await api.createEvent(task.event, this.reportingInstance, new Date());
      this.counters.events++;
      return;
    }
    const { ref, entries } = task.target;
    const key = refKey(ref);
    const current = await api.readIngressStatus(ref.namespace, ref.name);
    if (current === null) {
      this.ours.delete(key);
      return;
    }
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
}
