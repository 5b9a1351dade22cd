import { Counter, Gauge, Histogram, type Registry } from '@portolan/telemetry';
import type { HeldRemoval } from './core/removal-hold.ts';

/** The planner's Prometheus metrics. */
export interface PlannerMetrics {
  readonly brokerHistoryRegressed: Counter;
  observeBatch(events: number, snapshots: number, ms: number): void;
  /** Sets the held-removals gauge from the holds in force (every cluster and kind, zero included once seen). */
  observeHolds(holds: readonly HeldRemoval[]): void;
}

/** Registers the planner's metrics on `registry`. */
export function plannerMetrics(registry: Registry): PlannerMetrics {
  const regressed = new Counter({ name: 'broker_history_regressed_total', help: 'Stream sequences missing or behind the committed position (FM-8)', registers: [registry] });
  const events = new Counter({ name: 'planner_events_total', help: 'Kube-stream messages folded', registers: [registry] });
  const snapshots = new Counter({ name: 'planner_snapshots_total', help: 'Snapshots committed', registers: [registry] });
  const batch = new Histogram({ name: 'planner_batch_seconds', help: 'Fold + plan + commit time per batch', buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1], registers: [registry] });
  const held = new Gauge({ name: 'planner_held_removals', help: 'Removals the safety rule holds now, per cluster and kind (approve with portolan approve)', labelNames: ['cluster', 'kind'], registers: [registry] });
  const seen = new Set<string>();
  return {
    brokerHistoryRegressed: regressed,
    observeHolds(holds) {
      const counts = new Map<string, number>();
      for (const h of holds) counts.set(`${h.cluster}\u0000${h.kind}`, (counts.get(`${h.cluster}\u0000${h.kind}`) ?? 0) + 1);
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
