// Applier: follows snapshots, diffs the appliance, pushes the difference under a fenced leader epoch, checks drift, writes Ingress status and Events.
export {
  Applier,
  type ApplierOptions,
  type ApplierLogger,
  type CycleResult,
  type DriftCheckResult,
} from './applier.ts';
export { createApplierMetrics, type ApplierMetrics } from './applier-metrics.ts';
export { PgSnapshotSource, type SnapshotSource } from './adapters/pg-snapshot-source.ts';
export { PgApplyLog } from './adapters/pg-apply-log.ts';
export type { ApplyLog, ApplyRecordInput, EpochFence, RecordedApply } from './core/apply-log.ts';
export type { AnnouncedSnapshot, LoadedSnapshot, SnapshotStore } from './core/snapshot-store.ts';
export { ArchivedSecretResolver } from './adapters/archived-secret-resolver.ts';
export { ApplierBus, type ApplyAnnouncement } from './adapters/bus-adapter.ts';
export { DriverRegistry, DriverLoadError, type DriverFactory } from '@portolan/drivers';
export { ClientNodeKubeApi, type KubeApi } from './adapters/kube-api.ts';
export { KubeWriteback, type WritebackCounters } from './adapters/kube-writeback.ts';
export {
  decideApplyTarget,
  mayConverge,
  type ApplyTarget,
  type ApplyTrigger,
  type SnapshotHeader,
} from './core/apply-target.ts';
export { summarizeApply, isAppliedStatus, type ApplyStatus, type ApplySummary } from './core/apply-outcome.ts';
export { retryDelayMs, nextRetryDelayMs, defaultRetryPolicy, type RetryPolicy } from './core/retry-schedule.ts';
export { describeDrift, driftAction, type DriftReport, type DriftPolicy } from './core/drift-report.ts';
export {
  ingressStatusTargets,
  mergeLoadBalancerIngress,
  loadBalancerEntry,
  refKey,
  type LoadBalancerIngress,
  type IngressStatusTarget,
} from './core/ingress-status.ts';
export {
  conditionEvents,
  newEvents,
  eventKey,
  takeToken,
  fullBucket,
  clientGoRateLimit,
  type ObjectEventDraft,
  type TokenBucket,
  type RateLimit,
} from './core/kube-write-plan.ts';
export { SnapshotLoadError, SecretResolveError } from './errors.ts';
