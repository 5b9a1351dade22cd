// Audit and replay: configuration history, diff, explain, point-in-time, replay and rollback of appliances.
export { auditCommands, type AuditCommand, type AuditCommandName } from './commands/index.ts';
export { processIo, progress, type CommandIo, type Progress } from './adapters/command-io.ts';
export { AuditUsageError, ReplayTargetError } from './errors.ts';
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
export type { HistoryReport, HistoryEntry, SnapshotRecord, ApplyRecord } from './core/history-report.ts';
export type { AtReport } from './core/at-report.ts';
export type { ExplainReport } from './core/explain-report.ts';
export type { DiffReport, ShowReport } from './core/snapshot-views.ts';
export type { RollbackReport } from './core/rollback-report.ts';
export type { ReplayReport } from './core/replay-report.ts';
export { comparableState } from './core/replay-state.ts';
export type { OperationsReport } from './core/operations-report.ts';
export type { StatusReport } from './core/status-report.ts';
export type { ResumeReport } from './commands/resume.ts';
