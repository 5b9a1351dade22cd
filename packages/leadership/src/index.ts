// Leadership per appliance group: Redis lease with monotonic validity and Postgres fencing epochs.
export {
  LeaderElector,
  type Leadership,
  type LeaderEvent,
  type LeaderElectorOptions,
  type LossReason,
} from './leader-elector.ts';
export { RedisLeaseClient, type LeaseInspection } from './adapters/redis-lease-client.ts';
export { PgEpochStore, epochRowForShare, type EpochGrant, type CurrentEpoch } from './adapters/pg-epoch-store.ts';
export {
  leaseTimings,
  leaseDeadline,
  actingDelayMs,
  defaultDriftMarginMs,
  type LeaseTimings,
  type LeaseTimingsInput,
  type LeaseTimingsProblem,
} from './core/lease-timings.ts';
export {
  parseLeaseStoreAddress,
  type LeaseStoreAddress,
  type LeaseStoreAddressProblem,
} from './core/lease-store-address.ts';
export { formatLeaseValue, parseLeaseValue, leaseKey, type LeaseValue } from './core/lease-value.ts';
export { StaleEpochError, LeaseStoreError, EpochStoreError, LeaderListenerError } from './errors.ts';
export { groupStatuses, type GroupStatus } from './group-status.ts';
