import { setTimeout as sleep } from 'node:timers/promises';
import { errorMessage } from '@portolan/errors';
import {
  EpochStoreError,
  groupStatuses,
  LeaseStoreError,
  type PgEpochStore,
  type RedisLeaseClient,
} from '@portolan/leadership';
import type { HealthCheck, Logger } from '@portolan/telemetry';
import type { LeaderMetrics } from './leader-metrics.ts';

/** What a LeaderMonitor reads and where it reports. */
export interface LeaderMonitorOptions {
  readonly groups: readonly string[];
  readonly lease: RedisLeaseClient;
  readonly epochs: PgEpochStore;
  readonly metrics: LeaderMetrics;
  readonly log: Logger;
  readonly intervalMs: number;
  /** Redis key prefix of the leases (default `portolan:`, the appliers'). */
  readonly keyPrefix?: string;
}

/**
 * Reads every group's lease holder and epoch every interval and feeds the metrics. A read that fails is counted
 * and shown as "no leader" (fail closed) and on /readyz; any other error is a bug and ends the loop.
 */
export class LeaderMonitor {
  private readonly options: LeaderMonitorOptions;
  private readonly stopController = new AbortController();
  private loop: Promise<void> | null = null;
  private lastProblem: string | null = 'no read yet';

  constructor(options: LeaderMonitorOptions) {
    this.options = options;
  }

  /** Starts polling; the returned promise settles when stop() is called, or rejects on a bug. */
  start(): Promise<void> {
    this.loop ??= this.run();
    return this.loop;
  }

  /** Ready once the last read of every group succeeded. */
  readonly readiness: HealthCheck = () =>
    this.lastProblem === null ? { ok: true } : { ok: false, reason: this.lastProblem };

  /** Reads every group once and records the result. */
  async poll(): Promise<void> {
    const { groups, lease, epochs, metrics, keyPrefix } = this.options;
    try {
      metrics.observe(await groupStatuses(groups, lease, epochs, keyPrefix), Date.now());
      if (this.lastProblem !== null) this.options.log.info({ groups: groups.length }, 'leader status readable');
      this.lastProblem = null;
    } catch (e) {
      if (!(e instanceof LeaseStoreError || e instanceof EpochStoreError)) throw e;
      metrics.observeUnreadable(groups);
      if (this.lastProblem !== errorMessage(e)) this.options.log.warn({ err: e }, 'cannot read the leader status');
      this.lastProblem = errorMessage(e);
    }
  }

  /** Stops polling after the read in flight; the promise start() returned then settles. */
  stop(): void {
    this.stopController.abort();
  }

  private async run(): Promise<void> {
    const signal = this.stopController.signal;
    while (!signal.aborted) {
      await this.poll();
      try {
        await sleep(this.options.intervalMs, undefined, { signal });
      } catch (e) {
        if (!signal.aborted) throw e;
      }
    }
  }
}
