import type { Kysely } from 'kysely';
import { readHoldsReleasedAt, readOpenHolds, type RecordedHold } from './removal-holds.ts';
import type { Database } from './schema.ts';

/** An apply that carried out an approval: the snapshot it pushed and how it ended. */
export interface ApprovalApply {
  readonly snapshotId: string;
  readonly status: string;
}

/** What `portolan approve` reads: the holds an approval would release, then how far the pipeline carried it out. */
export interface ApprovalProgress {
  /** The holds in force in `clusters`, oldest first. */
  openHolds(clusters: readonly string[]): Promise<RecordedHold[]>;
  /** The holds the planner released when it folded the approval at sequence `seq` (empty until it has). */
  releasedBy(seq: number): Promise<RecordedHold[]>;
  /** The first apply to `appliance` that pushed a snapshot planned at or after `seq` and changed it, or null. */
  firstApplyFrom(appliance: string, seq: number): Promise<ApprovalApply | null>;
}

/** ApprovalProgress in Postgres. */
export class PgApprovalProgress implements ApprovalProgress {
  readonly db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  openHolds(clusters: readonly string[]): Promise<RecordedHold[]> {
    return readOpenHolds(this.db, clusters);
  }

  releasedBy(seq: number): Promise<RecordedHold[]> {
    return readHoldsReleasedAt(this.db, seq);
  }

  async firstApplyFrom(appliance: string, seq: number): Promise<ApprovalApply | null> {
    const row = await this.db
      .selectFrom('applies')
      .innerJoin('snapshots', 'snapshots.id', 'applies.snapshot_id')
      .select(['applies.snapshot_id', 'applies.status'])
      .where('applies.appliance', '=', appliance)
      .where('snapshots.last_event_seq', '>=', String(seq))
      .where('applies.status', 'in', ['succeeded', 'noop', 'partial'])
      .orderBy('applies.id')
      .executeTakeFirst();
    return row === undefined ? null : { snapshotId: String(row.snapshot_id), status: row.status };
  }
}
