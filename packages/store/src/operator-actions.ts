import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

/** An operator's write as recorded: approve, rollback or resume, by whom, why, and what it involved. */
export interface OperatorAction {
  readonly id: string;
  readonly at: Date;
  readonly actor: string;
  readonly action: 'approve' | 'rollback' | 'resume';
  readonly appliance: string;
  readonly reason: string;
  readonly targetSnapshotId: string | null;
  readonly resultSnapshotId: string | null;
  readonly approvalSeq: number | null;
}

/** What a write records; id and time are the database's (the time is its transaction's, as its snapshot's). */
export type NewOperatorAction = Omit<OperatorAction, 'id' | 'at'>;

/** Records one operator action (inside the caller's transaction when given one); returns its id. */
export async function recordOperatorAction(db: Kysely<Database>, a: NewOperatorAction): Promise<string> {
  const row = await db
    .insertInto('operator_actions')
    .values({
      actor: a.actor,
      action: a.action,
      appliance: a.appliance,
      reason: a.reason,
      target_snapshot_id: a.targetSnapshotId,
      result_snapshot_id: a.resultSnapshotId,
      approval_seq: a.approvalSeq,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return String(row.id);
}

/** The operator actions on one appliance, oldest first, optionally within a time window. */
export async function readOperatorActions(
  db: Kysely<Database>,
  appliance: string,
  window: { since?: Date | null; until?: Date | null } = {},
): Promise<OperatorAction[]> {
  let q = db.selectFrom('operator_actions').selectAll().where('appliance', '=', appliance);
  if (window.since) q = q.where('at', '>=', window.since);
  if (window.until) q = q.where('at', '<=', window.until);
  const rows = await q.orderBy('at').orderBy('id').execute();
  return rows.map((r) => ({
    id: String(r.id),
    at: new Date(r.at),
    actor: r.actor,
    action: r.action,
    appliance: r.appliance,
    reason: r.reason,
    targetSnapshotId: r.target_snapshot_id === null ? null : String(r.target_snapshot_id),
    resultSnapshotId: r.result_snapshot_id === null ? null : String(r.result_snapshot_id),
    approvalSeq: r.approval_seq === null ? null : Number(r.approval_seq),
  }));
}
