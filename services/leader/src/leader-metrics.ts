import type { GroupStatus } from '@portolan/leadership';
import { Counter, Gauge, type Registry } from '@portolan/telemetry';

/** The leader monitor's Prometheus metrics: one series per appliance group, so an operator can alert on a group with no leader. */
export interface LeaderMetrics {
  /** Records one successful read of every group. */
  observe(statuses: readonly GroupStatus[], atMs: number): void;
  /**
   * Records a failed read. It fails closed: every group shows no leader and no lease left, because a leader that
   * cannot be confirmed must not look healthy (and an unreachable Redis stops the appliers renewing anyway).
   */
  observeUnreadable(groups: readonly string[]): void;
}

/** Registers the `portolan_leader_*` metrics on `registry`. */
export function createLeaderMetrics(registry: Registry): LeaderMetrics {
  const registers = [registry];
  const hasLeader = new Gauge({
    name: 'portolan_leader_group_has_leader',
    help: '1 while some replica holds the group lease in Redis; 0 when nobody does or it cannot be read.',
    labelNames: ['group'],
    registers,
  });
  const epoch = new Gauge({
    name: 'portolan_leader_group_epoch',
    help: 'Latest fencing epoch granted to the group in Postgres (0 before the first grant).',
    labelNames: ['group'],
    registers,
  });
  const remaining = new Gauge({
    name: 'portolan_leader_lease_remaining_seconds',
    help: 'Seconds left on the group lease in Redis (0 when nobody holds it or it cannot be read).',
    labelNames: ['group'],
    registers,
  });
  const lastRead = new Gauge({
    name: 'portolan_leader_last_read_timestamp_seconds',
    help: 'Unix time of the last successful read of every group (0 before the first).',
    registers,
  });
  const failures = new Counter({
    name: 'portolan_leader_read_failures_total',
    help: 'Reads of the leases (Redis) or the epochs (Postgres) that failed.',
    registers,
  });
  lastRead.set(0);
  failures.inc(0);
  return {
    observe(statuses, atMs) {
      for (const s of statuses) {
        hasLeader.set({ group: s.group }, s.holder === null ? 0 : 1);
        epoch.set({ group: s.group }, s.epoch ?? 0);
        remaining.set({ group: s.group }, s.holder === null ? 0 : Math.max(0, s.remainingTtlMs ?? 0) / 1000);
      }
      lastRead.set(atMs / 1000);
    },
    observeUnreadable(groups) {
      failures.inc();
      for (const group of groups) {
        hasLeader.set({ group }, 0);
        remaining.set({ group }, 0);
      }
    },
  };
}
