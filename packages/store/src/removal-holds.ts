import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

/** One removal the safety rule held, as the planner recorded it (open while `releasedAt` is null). */
export interface RecordedHold {
  readonly id: string;
  readonly cluster: string;
  readonly kind: string;
  /** `namespace/name`, or `name` for cluster-scoped kinds. */
  readonly objectKey: string;
  readonly reason: string;
  readonly heldAt: Date;
  readonly heldSeq: number;
  readonly releasedAt: Date | null;
  readonly releasedSeq: number | null;
  /** `approval: <who>`, `kubernetes` or `relist`. */
  readonly releasedBy: string | null;
  readonly releaseReason: string | null;
  /** Whether the release removed the object (true) or kept it because it came back (false). */
  readonly removed: boolean | null;
}

type Row = Database['removal_holds'] extends infer T ? { [K in keyof T]: unknown } : never;

function toHold(r: Row): RecordedHold {
  const date = (v: unknown): Date | null => (v === null ? null : new Date(v as string | Date));
  return {
    id: String(r.id),
    cluster: String(r.cluster),
    kind: String(r.kind),
    objectKey: String(r.object_key),
    reason: String(r.reason),
    heldAt: date(r.held_at)!,
    heldSeq: Number(r.held_seq),
    releasedAt: date(r.released_at),
    releasedSeq: r.released_seq === null ? null : Number(r.released_seq),
    releasedBy: r.released_by as string | null,
    releaseReason: r.release_reason as string | null,
    removed: r.removed as boolean | null,
  };
}

/** The holds in force in some clusters (null: every cluster), oldest first. */
export async function readOpenHolds(db: Kysely<Database>, clusters: readonly string[] | null): Promise<RecordedHold[]> {
  if (clusters !== null && clusters.length === 0) return [];
  let q = db.selectFrom('removal_holds').selectAll().where('released_seq', 'is', null);
  if (clusters !== null) q = q.where('cluster', 'in', clusters);
  return (await q.orderBy('id').execute()).map(toHold);
}

/** Holds begun or ended in a time window (either end may be open), for `portolan history`. */
export async function readHoldsBetween(
  db: Kysely<Database>,
  clusters: readonly string[] | null,
  since: Date | null,
  until: Date | null,
): Promise<RecordedHold[]> {
  if (clusters !== null && clusters.length === 0) return [];
  let q = db.selectFrom('removal_holds').selectAll();
  if (clusters !== null) q = q.where('cluster', 'in', clusters);
  if (since !== null) q = q.where((eb) => eb.or([eb('held_at', '>=', since), eb('released_at', '>=', since)]));
  if (until !== null) q = q.where('held_at', '<=', until);
  return (await q.orderBy('id').execute()).map(toHold);
}

/** Holds released by one approval (its archived sequence number). */
export async function readHoldsReleasedAt(db: Kysely<Database>, releasedSeq: number): Promise<RecordedHold[]> {
  return (
    await db
      .selectFrom('removal_holds')
      .selectAll()
      .where('released_seq', '=', String(releasedSeq))
      .orderBy('id')
      .execute()
  ).map(toHold);
}
