import { Counter, Histogram, type Registry } from '@portolan/telemetry';

/** The planner's Prometheus metrics. */
export interface PlannerMetrics {
  readonly brokerHistoryRegressed: Counter;
  observeBatch(events: number, snapshots: number, ms: number): void;
}

/** Registers the planner's metrics on `registry`. */
export function plannerMetrics(registry: Registry): PlannerMetrics {
  const regressed = new Counter({ name: 'broker_history_regressed_total', help: 'Stream sequences missing or behind the committed position (FM-8)', registers: [registry] });
  const events = new Counter({ name: 'planner_events_total', help: 'Kube-stream messages folded', registers: [registry] });
  const snapshots = new Counter({ name: 'planner_snapshots_total', help: 'Snapshots committed', registers: [registry] });
  const batch = new Histogram({ name: 'planner_batch_seconds', help: 'Fold + plan + commit time per batch', buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1], registers: [registry] });
  return {
    brokerHistoryRegressed: regressed,
    observeBatch(n, s, ms) {
      events.inc(n);
      snapshots.inc(s);
      batch.observe(ms / 1000);
    },
  };
}
