import { Counter, Gauge, Histogram, type Registry } from '@portolan/telemetry';

/** The applier's Prometheus metrics (enough to alarm on no leader and on the age of the oldest unapplied snapshot). */
export interface ApplierMetrics {
  readonly leader: Gauge;
  readonly epoch: Gauge;
  readonly lastApplyTimestamp: Gauge;
  /** Unix time of the last apply that left the appliance equal to its target (succeeded or no-op). */
  readonly lastSuccessTimestamp: Gauge;
  readonly oldestUnappliedAge: Gauge;
  readonly pendingOperations: Gauge;
  readonly operations: Counter;
  readonly applies: Counter;
  readonly drift: Counter;
  /** Seconds per phase of recorded apply cycles (CyclePhases: queued, head, load, render, read-back, diff, epoch, send, record, announce). */
  readonly cyclePhases: Histogram<'phase'>;
}

/** Registers the applier metrics on a registry; `lastApplyAt` feeds the age gauge at scrape time. */
// A table, one declaration per metric: kept in one place so that every name an alert or dashboard uses is found here.
// eslint-disable-next-line max-lines-per-function
export function createApplierMetrics(registry: Registry, lastApplyAt: () => number | null): ApplierMetrics {
  const registers = [registry];
  new Gauge({
    name: 'portolan_applier_last_apply_age_seconds',
    help: 'Seconds since the last recorded apply (noop included) of this replica.',
    registers,
    collect() {
      const at = lastApplyAt();
      this.set(at === null ? -1 : (Date.now() - at) / 1000);
    },
  });
  return {
    leader: new Gauge({
      name: 'portolan_applier_leader',
      help: '1 while this replica leads its appliance group and may write.',
      registers,
    }),
    epoch: new Gauge({
      name: 'portolan_applier_epoch',
      help: 'Fencing epoch of the current (or last) leadership term of this replica.',
      registers,
    }),
    lastApplyTimestamp: new Gauge({
      name: 'portolan_applier_last_apply_timestamp_seconds',
      help: 'Unix time of the last recorded apply.',
      registers,
    }),
    lastSuccessTimestamp: new Gauge({
      name: 'portolan_applier_last_success_timestamp_seconds',
      help: 'Unix time of the last apply that succeeded or found nothing to do (0 before the first).',
      registers,
    }),
    oldestUnappliedAge: new Gauge({
      name: 'portolan_applier_oldest_unapplied_snapshot_age_seconds',
      help: 'Age of the oldest snapshot newer than the last applied one (0 when up to date).',
      registers,
    }),
    pendingOperations: new Gauge({
      name: 'portolan_applier_pending_operations',
      help: 'Operations the last diff found between the appliance and the target.',
      registers,
    }),
    operations: new Counter({
      name: 'portolan_applier_operations_total',
      help: 'Operations sent to the appliance, by result.',
      labelNames: ['result'],
      registers,
    }),
    applies: new Counter({
      name: 'portolan_applier_applies_total',
      help: 'Recorded applies, by status.',
      labelNames: ['status'],
      registers,
    }),
    drift: new Counter({
      name: 'portolan_applier_drift_total',
      help: 'Drift observations, by action.',
      labelNames: ['action'],
      registers,
    }),
    cyclePhases: new Histogram({
      name: 'portolan_applier_cycle_phase_seconds',
      help: 'Time per phase of recorded apply cycles, from the trigger (queued) to the announcement.',
      labelNames: ['phase'],
      registers,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
    }),
  };
}
