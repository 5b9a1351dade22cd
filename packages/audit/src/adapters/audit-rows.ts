// The rows the audit reads from `snapshots` and `applies`, and the records it makes of them.
import type { ApplyRecord, SnapshotRecord } from '../core/history-report.ts';

/** A `snapshots` row as selected with SNAPSHOT_COLUMNS. */
export type SnapshotRow = {
  id: string;
  appliance: string;
  parent_id: string | null;
  content_hash: string;
  root_hash: string;
  last_event_seq: string;
  held: boolean;
  hold_reason: string | null;
  origin: string;
  reason: string | null;
  created_at: Date;
  trace_id: string | null;
  planner_version: string;
  fleet_config_hash: string;
};

/** The `snapshots` columns a SnapshotRecord is read from. */
export const SNAPSHOT_COLUMNS = [
  'id',
  'appliance',
  'parent_id',
  'content_hash',
  'root_hash',
  'last_event_seq',
  'held',
  'hold_reason',
  'origin',
  'reason',
  'created_at',
  'trace_id',
  'planner_version',
  'fleet_config_hash',
] as const;
/** The `applies` columns an ApplyRecord is read from (the operations and results only to count them). */
export const APPLY_COLUMNS = [
  'id',
  'snapshot_id',
  'epoch',
  'leader_id',
  'trigger',
  'status',
  'operations',
  'results',
  'reason',
  'started_at',
  'finished_at',
  'trace_id',
  'observed_after_hash',
] as const;

/** A `snapshots` row as the audit shows it (int8 ids as strings, times as Dates). */
export function toSnapshot(r: SnapshotRow): SnapshotRecord {
  return {
    id: String(r.id),
    appliance: r.appliance,
    parentId: r.parent_id === null ? null : String(r.parent_id),
    contentHash: r.content_hash,
    rootHash: r.root_hash,
    lastEventSeq: Number(r.last_event_seq),
    held: r.held,
    holdReason: r.hold_reason,
    origin: r.origin,
    reason: r.reason,
    createdAt: new Date(r.created_at),
    traceId: r.trace_id,
    plannerVersion: r.planner_version,
    fleetConfigHash: r.fleet_config_hash,
  };
}

/** An `applies` row as the audit shows it: operations and failed results counted, not carried. */
export function toApply(r: {
  id: string;
  snapshot_id: string;
  epoch: string;
  leader_id: string;
  trigger: string;
  status: string;
  operations: unknown;
  results: unknown;
  reason: string | null;
  started_at: Date;
  finished_at: Date;
  trace_id: string | null;
  observed_after_hash: string | null;
}): ApplyRecord {
  const results = Array.isArray(r.results) ? (r.results as { result?: { ok?: boolean } }[]) : [];
  return {
    id: String(r.id),
    snapshotId: String(r.snapshot_id),
    epoch: Number(r.epoch),
    leaderId: r.leader_id,
    trigger: r.trigger,
    status: r.status,
    operations: Array.isArray(r.operations) ? r.operations.length : 0,
    failed: results.filter((x) => x.result?.ok === false).length,
    reason: r.reason,
    startedAt: new Date(r.started_at),
    finishedAt: new Date(r.finished_at),
    traceId: r.trace_id,
    observedAfterHash: r.observed_after_hash,
  };
}
