import type { ColumnType } from 'kysely';

/**
 * The Postgres schema (docs/architecture.md, "Storage") as kysely types. Everything here is append-only except
 * `snapshot_heads`, `consumer_positions` and `leader_epochs`, which are moved by compare-and-set.
 */

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Int8 = ColumnType<string, string | number | bigint, string | number | bigint>;
/** A bigserial id: read as a string, optional on insert. */
type SerialId = ColumnType<string, string | number | bigint | undefined, string | number | bigint>;

/** Every bus message the planner consumed, by stream sequence: the replayable input. */
export interface EventsTable {
  seq: Int8;
  subject: string;
  msg_id: string;
  cluster: string;
  kind: string;
  /** "namespace/name", "name" for cluster-scoped objects, '' for markers and heartbeats. */
  object_key: string;
  /** ADDED, MODIFIED, DELETED, LIST_MARKER or HEARTBEAT. */
  event_type: string;
  /** The protobuf message as it travelled (Secret data inside is sealed). */
  payload: Buffer;
  received_at: Timestamp;
  trace_id: string | null;
}

/** Content-addressed snapshot pieces: canonical JSON keyed by its SHA-256. Shared between snapshots. */
export interface SnapshotPiecesTable {
  hash: string;
  body: Buffer;
  created_at: Timestamp;
}

/** One desired-state snapshot per appliance; `(appliance, parent_id)` is unique, so the chain cannot fork. */
export interface SnapshotsTable {
  id: SerialId;
  appliance: string;
  content_hash: string;
  /** Piece hash of the root that lists the snapshot's pieces. */
  root_hash: string;
  parent_id: Int8 | null;
  last_event_seq: Int8;
  fleet_config_hash: string;
  planner_version: string;
  held: boolean;
  hold_reason: string | null;
  /** 'plan' for planner output, 'rollback' for an operator's rollback target. */
  origin: string;
  reason: string | null;
  created_at: Timestamp;
  trace_id: string | null;
}

/** The current head snapshot of each appliance, moved only by compare-and-set on `snapshot_id`. */
export interface SnapshotHeadsTable {
  appliance: string;
  snapshot_id: Int8;
  content_hash: string;
  updated_at: Timestamp;
}

/** Durable consumer positions, written in the same transaction as what they produced. */
export interface ConsumerPositionsTable {
  consumer: string;
  stream_seq: Int8;
  updated_at: Timestamp;
}

/** Every fleet-config version seen (planner input, so recorded). */
export interface FleetConfigsTable {
  hash: string;
  body: unknown;
  first_seen_at: Timestamp;
}

/** Fencing epochs per leader group: incremented on every acquisition. */
export interface LeaderEpochsTable {
  group_name: string;
  epoch: Int8;
  holder: string;
  acquired_at: Timestamp;
  /** Redis INFO run_id of the incarnation that granted the lease (migration 0002). */
  redis_run_id: string | null;
}

/** Append-only log of every epoch granted, for audit and the "no two leaders" check. */
export interface LeaderEpochHistoryTable {
  id: SerialId;
  group_name: string;
  epoch: Int8;
  holder: string;
  acquired_at: Timestamp;
  /** Redis INFO run_id of the incarnation that granted the lease (migration 0002). */
  redis_run_id: string | null;
  /** How long the new leader waited before acting (one TTL after a Redis incarnation change, else 0). */
  acting_delay_ms: ColumnType<number, number | undefined, number>;
}

/** Every apply: the operations sent, what came back, under which epoch. Append-only. */
export interface AppliesTable {
  id: SerialId;
  appliance: string;
  snapshot_id: Int8;
  epoch: Int8;
  leader_id: string;
  /** 'snapshot', 'drift-correction', 'rollback' or 'retry'. */
  trigger: string;
  status: string;
  /** One header per operation (objectType, objectName, action, summary); with no operations_hash, the whole operations (older rows). */
  operations: unknown;
  /** Root of the value tree holding the operations with their payloads (null in rows older than migration 0006). */
  operations_hash: string | null;
  results: unknown;
  /** Piece hash of the vendor objects read back after the apply (what the appliance then held). */
  observed_after_hash: string | null;
  reason: string | null;
  started_at: Timestamp;
  finished_at: Timestamp;
  trace_id: string | null;
}

/** Drift found by read-back, with before/after, and what was done about it. */
export interface DriftObservationsTable {
  id: SerialId;
  appliance: string;
  snapshot_id: Int8 | null;
  objects: unknown;
  before: unknown;
  after: unknown;
  action: string;
  observed_at: Timestamp;
}

/** An operator's rollback pin (migration 0003): while present, the planner holds the appliance's new snapshots. */
export interface SnapshotPinsTable {
  appliance: string;
  /** The snapshot the appliance was rolled back to (the rollback snapshot's content is this one's). */
  snapshot_id: Int8;
  reason: string | null;
  created_at: Timestamp;
  /** Who pinned it (migration 0008); null on pins older than that. */
  actor: string | null;
}

/** Operator approvals of held snapshots (`portolan approve`). */
export interface SnapshotApprovalsTable {
  appliance: string;
  snapshot_id: Int8;
  approved_by: string;
  reason: string | null;
  created_at: Timestamp;
}

/** The safety rule's held removals (migration 0007): open while `released_seq` is null. */
export interface RemovalHoldsTable {
  id: SerialId;
  cluster: string;
  kind: string;
  object_key: string;
  reason: string;
  held_at: Timestamp;
  held_seq: Int8;
  released_at: Timestamp | null;
  released_seq: Int8 | null;
  /** `approval: <who>`, `kubernetes` or `relist`. */
  released_by: string | null;
  release_reason: string | null;
  /** Whether the release removed the object (an approval or a confirming relist) or kept it (it came back). */
  removed: boolean | null;
}

/** An operator's write (migration 0008): who approved, rolled back or resumed an appliance, and why. Append-only. */
export interface OperatorActionsTable {
  id: SerialId;
  at: Timestamp;
  /** The authenticated identity, e.g. `alice (token)`. */
  actor: string;
  action: 'approve' | 'rollback' | 'resume';
  appliance: string;
  reason: string;
  /** Rollback: the snapshot rolled back to; resume: the snapshot the removed pin named. */
  target_snapshot_id: Int8 | null;
  /** Rollback: the appended rollback snapshot; resume: the released plan, when one was. */
  result_snapshot_id: Int8 | null;
  /** Approve: the stream sequence of the published HoldApproved (null when nothing was held). */
  approval_seq: Int8 | null;
}

/** The whole database. */
export interface Database {
  events: EventsTable;
  snapshot_pieces: SnapshotPiecesTable;
  snapshots: SnapshotsTable;
  snapshot_heads: SnapshotHeadsTable;
  consumer_positions: ConsumerPositionsTable;
  fleet_configs: FleetConfigsTable;
  leader_epochs: LeaderEpochsTable;
  leader_epoch_history: LeaderEpochHistoryTable;
  applies: AppliesTable;
  drift_observations: DriftObservationsTable;
  snapshot_pins: SnapshotPinsTable;
  snapshot_approvals: SnapshotApprovalsTable;
  removal_holds: RemovalHoldsTable;
  operator_actions: OperatorActionsTable;
}
