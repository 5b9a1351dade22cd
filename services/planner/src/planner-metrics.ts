import { Counter, Gauge, Histogram, type Registry } from '@portolan/telemetry';
import type { HeldRemoval } from './core/world/removal-hold.ts';

/** The planner's Prometheus metrics. */
export interface PlannerMetrics {
  readonly brokerHistoryRegressed: Counter;
  /** Lost messages found by comparing watchers' settled digests with the planner's state (a relist was asked). */
  readonly lostMessagesSuspected: Counter<'cluster' | 'kind'>;
  observeBatch(events: number, snapshots: number, ms: number): void;
  /** Sets the held-removals gauge from the holds in force (every cluster and kind, zero included once seen). */
  observeHolds(holds: readonly HeldRemoval[]): void;
  /** Counts a batch that failed (it is redelivered): a planner failing every batch commits nothing. */
  readonly batchFailures: Counter;
  /** Records a committed batch: the time feeds `portolan_planner_last_commit_timestamp_seconds`. */
  observeCommitted(atMs: number): void;
  /** Plans that threw for an appliance (it keeps its last snapshot while the others go on). */
  readonly planFailures: Counter<'appliance'>;
}

/** Live planner state the gauges read at scrape time (the committed position, the newest folded heartbeat per cluster). */
export interface PlannerGaugeSources {
  committedPosition(): number;
  foldedHeartbeats(): ReadonlyMap<string, number>;
}

/** Registers the planner's metrics on `registry`; the position and heartbeat gauges only with `sources`. */
// eslint-disable-next-line max-lines-per-function -- a table of metric definitions, each read once, top to bottom
export function plannerMetrics(registry: Registry, sources?: PlannerGaugeSources): PlannerMetrics {
  if (sources !== undefined) registerProgressGauges(registry, sources);
  const failures = new Counter({
    name: 'portolan_planner_batch_failures_total',
    help: 'Batches (or their deliveries) that failed and will be redelivered; nothing of a failed batch is committed',
    registers: [registry],
  });
  const lastCommit = new Gauge({
    name: 'portolan_planner_last_commit_timestamp_seconds',
    help: 'Unix time of the last committed batch (0 before the first)',
    registers: [registry],
  });
  const regressed = new Counter({
    name: 'portolan_planner_broker_history_regressed_total',
    help: 'Stream sequences missing or behind the committed position',
    registers: [registry],
  });
  const lost = new Counter({
    name: 'portolan_planner_lost_messages_suspected_total',
    help: 'Kinds whose state differed from a settled watcher digest, so the watchers were asked to relist',
    labelNames: ['cluster', 'kind'],
    registers: [registry],
  });
  const events = new Counter({
    name: 'portolan_planner_events_total',
    help: 'Kube-stream messages folded',
    registers: [registry],
  });
  const snapshots = new Counter({
    name: 'portolan_planner_snapshots_total',
    help: 'Snapshots committed',
    registers: [registry],
  });
  const batch = new Histogram({
    name: 'portolan_planner_batch_seconds',
    help: 'Fold + plan + commit time per batch',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [registry],
  });
  const held = new Gauge({
    name: 'portolan_planner_held_removals',
    help: 'Removals the safety rule holds now, per cluster and kind (approve with portolan approve)',
    labelNames: ['cluster', 'kind'],
    registers: [registry],
  });
  const planFailures = new Counter({
    name: 'portolan_planner_plan_failures_total',
    help: 'Plans of an appliance that threw (a bug meeting some input): it keeps its last snapshot, the others go on',
    labelNames: ['appliance'],
    registers: [registry],
  });
  const seen = new Set<string>();
  return {
    planFailures,
    brokerHistoryRegressed: regressed,
    lostMessagesSuspected: lost,
    batchFailures: failures,
    observeCommitted(atMs) {
      lastCommit.set(atMs / 1000);
    },
    observeHolds(holds) {
      const counts = new Map<string, number>();
      for (const h of holds)
        counts.set(`${h.cluster}\u0000${h.kind}`, (counts.get(`${h.cluster}\u0000${h.kind}`) ?? 0) + 1);
      for (const k of seen) if (!counts.has(k)) counts.set(k, 0);
      for (const [k, n] of counts) {
        seen.add(k);
        const [cluster = '', kind = ''] = k.split('\u0000');
        held.set({ cluster, kind }, n);
      }
    },
    observeBatch(n, s, ms) {
      events.inc(n);
      snapshots.inc(s);
      batch.observe(ms / 1000);
    },
  };
}

/**
 * The planner's progress as the alerting rules need it: its committed stream position (compare with the stream's last
 * sequence: lag that grows while the position stands still is a planner not consuming) and the age of the newest
 * heartbeat it folded per cluster (a stale watch when the watcher is silent, a stalled planner when all go stale).
 */
function registerProgressGauges(registry: Registry, sources: PlannerGaugeSources): void {
  new Gauge({
    name: 'portolan_planner_committed_sequence',
    help: 'Last kube-stream sequence whose effects are committed',
    registers: [registry],
    collect() {
      this.set(sources.committedPosition());
    },
  });
  new Gauge({
    name: 'portolan_planner_folded_heartbeat_age_seconds',
    help: 'Seconds since the newest watcher heartbeat the planner folded was sent, per cluster',
    labelNames: ['cluster'],
    registers: [registry],
    collect() {
      const now = Date.now();
      for (const [cluster, sentAtMs] of sources.foldedHeartbeats())
        this.set({ cluster }, Math.max(0, (now - sentAtMs) / 1000));
    },
  });
}
