export type * from './schema.ts';
export { openDatabase, migrateToLatest, MigrationError } from './database.ts';
export { NoWritableHostError, splitHostList } from './writable-host-pool.ts';
export { createTestDatabase, type TestDatabase } from './test-database.ts';
export { sql, type Insertable, type Kysely, type RawBuilder, type Transaction } from 'kysely';
export { isPinned, readPin, readPins, pinHoldReason, type SnapshotPin } from './snapshot-pins.ts';
export {
  recordOperatorAction,
  readOperatorActions,
  type OperatorAction,
  type NewOperatorAction,
} from './operator-actions.ts';
export { readApplyOperations, readValueTree } from './value-tree-store.ts';
export { StoredDataMissingError } from './errors.ts';
export { prefetchSnapshot, readSnapshotDesired, readSnapshotPieces } from './snapshot-pieces.ts';
export { readOpenHolds, readHoldsBetween, readHoldsReleasedAt, type RecordedHold } from './removal-holds.ts';
export {
  PgSnapshotHeads,
  HeadMovedError,
  appendSnapshotIn,
  type SnapshotHeads,
  type NewSnapshot,
} from './snapshot-heads.ts';
export { PgApprovalProgress, type ApprovalProgress, type ApprovalApply } from './approval-progress.ts';
