// Audit and replay: configuration history, diff, explain, point-in-time, replay and rollback of appliances.
// The api/ functions are what the console calls; the commands are the CLI's thin wrappers around them.
export { auditCommands, type AuditCommand, type AuditCommandName } from './commands/index.ts';
export { processIo, progress, type CommandIo, type Progress } from './adapters/command-io.ts';
export { AuditUsageError, CommandFailed, ReplayTargetError, type FailureKind } from './errors.ts';
export {
  auditContextFor,
  requireAppliance,
  requireSnapshot,
  type AuditContext,
  type AuditContextOptions,
  type ProgressFactory,
} from './api/audit-context.ts';
export { historyReport, type HistoryParams } from './api/history-report.ts';
export { showReport } from './api/show-report.ts';
export { diffReport } from './api/diff-report.ts';
export { explainReport, type ExplainParams } from './api/explain-report.ts';
export { atReport } from './api/at-report.ts';
export { operationsReport } from './api/operations-report.ts';
export { statusReport } from './api/status-report.ts';
export { rollback, rollbackApplied, type RollbackParams } from './api/rollback.ts';
export { resume, type ResumeReport } from './api/resume.ts';
export { approve, type ApproveParams } from './api/approve.ts';
export type { OperatorWrite } from './api/operator-write.ts';
export { checkReason, MAX_REASON_LENGTH } from './core/operator-reason.ts';
export { PgAuditStore, APPLIED_STATUSES, kindSpellings, type PinRecord } from './adapters/pg-audit-store.ts';
export { AsOfSecretResolver, ReplaySecretError } from './adapters/as-of-secret-resolver.ts';
export { isPinned, readPin, readPins, pinHoldReason, type SnapshotPin } from '@portolan/store';
export { diffDesiredStates, type ObjectDifference } from './core/desired-diff.ts';
export { listDesiredObjects, type DesiredObject } from './core/desired-objects.ts';
export {
  decodeArchivedChange,
  formatObject,
  type ArchivedChange,
  type ObjectChange,
  type ArchivedRow,
} from './core/archived-change.ts';
export { vendorRenderer, vendorOperations, type VendorRenderer } from './core/vendor-renderer.ts';
export { listVendorObjects, type VendorObject } from './core/vendor-objects.ts';
export { parseTimeSpec } from './core/time-spec.ts';
export { HISTORY_KINDS, filterHistory, type HistoryKind, type HistoryFilter } from './core/history-filter.ts';
export type { HistoryReport, HistoryEntry, OperatorEntry, SnapshotRecord, ApplyRecord } from './core/history-report.ts';
export type { AtReport } from './core/at-report.ts';
export type { ExplainReport } from './core/explain-report.ts';
export type { DiffReport, ShowReport } from './core/snapshot-views.ts';
export type { RollbackReport } from './core/rollback-report.ts';
export type { ApproveReport, HeldRemoval } from './core/approve-report.ts';
export type { ReplayReport } from './core/replay-report.ts';
export { comparableState } from './core/replay-state.ts';
export type { OperationsReport } from './core/operations-report.ts';
export type { StatusReport } from './core/status-report.ts';
