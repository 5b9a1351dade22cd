import type { Operation, OperationOutcome } from '@portolan/appliance-driver';
import { ValueTreeEncoder } from '@portolan/desired-state';
import { readValueTree } from '@portolan/store';
import { StaleEpochError } from '@portolan/leader';
import type { Database, Kysely } from '@portolan/store';
import type { ApplyStatus } from '../core/apply-outcome.ts';
import type { DriftReport } from '../core/drift-report.ts';

/** One apply as it goes into the append-only `applies` table. */
export interface ApplyRecordInput {
  readonly appliance: string;
  readonly snapshotId: string;
  readonly epoch: number;
  readonly leaderId: string;
  readonly trigger: 'snapshot' | 'drift-correction' | 'rollback' | 'retry' | 'hold';
  readonly status: ApplyStatus;
  readonly operations: readonly Operation[];
  readonly outcomes: readonly OperationOutcome[];
  /** The vendor objects read back after the apply (plain JSON, no secrets); null when the read-back failed. */
  readonly observedAfter: unknown;
  readonly reason: string | null;
  readonly startedAt: Date;
  readonly finishedAt: Date;
  readonly traceId: string | null;
}

/** A recorded apply, as the applier remembers the last one. */
export interface RecordedApply {
  readonly id: string;
  readonly snapshotId: string;
  readonly status: ApplyStatus;
  readonly observedAfterHash: string | null;
  readonly finishedAt: Date;
}

/** Checks the epoch inside the record's transaction (Leadership.assertEpochCurrent). */
export type EpochFence = (trx: Kysely<Database>) => Promise<void>;

/**
 * The apply log in Postgres. Every record of a leader is written in a transaction that first checks its epoch
 * is still current (FOR SHARE on the epoch row): a record from a superseded leader is refused and stored as
 * `fenced` instead, so no outcome under an old epoch is ever accepted as applied.
 */
export class PgApplyLog {
  private readonly db: Kysely<Database>;
  /** Read-backs are stored as value trees: one that shares most objects with the last one stores only what changed. */
  private readonly trees = new ValueTreeEncoder();

  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  /** Records an apply under the fence; returns the stored id and status (`fenced` when the epoch was stale). */
  async recordApply(input: ApplyRecordInput, fence: EpochFence): Promise<RecordedApply> {
    try {
      let stored: number | null = null;
      const recorded = await this.db.transaction().execute(async (trx) => {
        await fence(trx);
        let observedAfterHash: string | null = null;
        if (input.observedAfter !== null) {
          const tree = this.trees.encode(input.observedAfter);
          await this.putPieces(tree.pieces, trx);
          observedAfterHash = tree.root;
          stored = tree.gen;
        }
        return this.insert(trx, input, input.status, observedAfterHash, input.reason);
      });
      if (stored !== null) this.trees.confirm(stored);
      return recorded;
    } catch (e) {
      if (!(e instanceof StaleEpochError)) throw e;
      return this.insert(this.db, { ...input, outcomes: input.outcomes }, 'fenced', null, e.message);
    }
  }

  private async putPieces(pieces: ReadonlyMap<string, string>, executor: Kysely<Database>): Promise<void> {
    const rows = [...pieces].map(([hash, text]) => ({ hash, body: Buffer.from(text) }));
    // Bounded batches: one statement's bind parameters are limited (a first record of a large appliance has many pieces).
    for (let i = 0; i < rows.length; i += 5000) {
      await executor.insertInto('snapshot_pieces').values(rows.slice(i, i + 5000)).onConflict((oc) => oc.column('hash').doNothing()).execute();
    }
  }

  /** Reads a read-back stored with an apply (a value tree of pieces, or one plain piece for older records); null when absent. */
  async getPiece(hash: string): Promise<unknown> {
    return readValueTree(this.db, hash);
  }

  /** The last apply that may have reached the appliance (not fenced, not a hold). */
  async lastApplied(appliance: string): Promise<RecordedApply | null> {
    const row = await this.db.selectFrom('applies').select(['id', 'snapshot_id', 'status', 'observed_after_hash', 'finished_at'])
      .where('appliance', '=', appliance).where('status', 'not in', ['fenced', 'held'])
      .orderBy('id', 'desc').limit(1).executeTakeFirst();
    return row === undefined ? null : { id: String(row.id), snapshotId: String(row.snapshot_id), status: row.status as ApplyStatus, observedAfterHash: row.observed_after_hash, finishedAt: new Date(row.finished_at) };
  }

  /** Snapshot ids whose hold was already recorded (so a restart does not record them again). */
  /** Whether an operator approved a held snapshot (`portolan approve`). */
  async isApproved(appliance: string, snapshotId: string): Promise<boolean> {
    const row = await this.db.selectFrom('snapshot_approvals').select('snapshot_id').where('appliance', '=', appliance).where('snapshot_id', '=', snapshotId).executeTakeFirst();
    return row !== undefined;
  }

  async recordedHolds(appliance: string): Promise<Set<string>> {
    const rows = await this.db.selectFrom('applies').select('snapshot_id').where('appliance', '=', appliance).where('status', '=', 'held').orderBy('id', 'desc').limit(100).execute();
    return new Set(rows.map((r) => String(r.snapshot_id)));
  }

  /** Records drift found by a read-back. */
  async recordDrift(appliance: string, snapshotId: string | null, report: DriftReport, action: 'corrected' | 'reported'): Promise<string> {
    const row = await this.db.insertInto('drift_observations')
      .values({ appliance, snapshot_id: snapshotId, objects: JSON.stringify(report.objects), before: JSON.stringify(report.before), after: JSON.stringify(report.after), action })
      .returning('id').executeTakeFirstOrThrow();
    return String(row.id);
  }

  private async insert(executor: Kysely<Database>, input: ApplyRecordInput, status: ApplyStatus, observedAfterHash: string | null, reason: string | null): Promise<RecordedApply> {
    const results = input.outcomes.map((o) => ({ objectType: o.operation.objectType, objectName: o.operation.objectName, action: o.operation.action, result: o.result, durationMs: o.durationMs }));
    const row = await executor.insertInto('applies').values({
      appliance: input.appliance,
      snapshot_id: input.snapshotId,
      epoch: input.epoch,
      leader_id: input.leaderId,
      trigger: input.trigger,
      status,
      operations: JSON.stringify(input.operations),
      results: JSON.stringify(results),
      observed_after_hash: observedAfterHash,
      reason,
      started_at: input.startedAt,
      finished_at: input.finishedAt,
      trace_id: input.traceId,
    }).returning(['id', 'finished_at']).executeTakeFirstOrThrow();
    return { id: String(row.id), snapshotId: input.snapshotId, status, observedAfterHash, finishedAt: new Date(row.finished_at) };
  }
}
