import type { Operation } from '@portolan/appliance-driver';
import { ValueTreeEncoder } from '@portolan/desired-state';
import { readApplyOperations, readValueTree } from '@portolan/store';
import { epochRowForShare, StaleEpochError } from '@portolan/leadership';
import { sql, type AppliesTable, type Database, type Insertable, type Kysely } from '@portolan/store';
import type { ApplyStatus } from '../core/apply-outcome.ts';
import type { ApplyLog, ApplyRecordInput, EpochFence, RecordedApply } from '../core/apply-log.ts';
import type { DriftReport } from '../core/drift-report.ts';

export type { ApplyRecordInput, EpochFence, RecordedApply };

/**
 * The apply log in Postgres. Every record of a leader is written by one statement that first holds its epoch row
 * (FOR SHARE) and writes only if that epoch is still current: a record from a superseded leader is refused and
 * stored as `fenced` instead, so no outcome under an old epoch is ever accepted as applied.
 */
export class PgApplyLog implements ApplyLog {
  private readonly db: Kysely<Database>;
  /**
   * Operations and read-backs are stored as value trees: one that shares most objects with the last one stores only
   * what changed.
   */
  private readonly trees = new ValueTreeEncoder();

  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  /**
   * Records an apply under the fence; returns the stored id and status (`fenced` when the epoch was stale). One
   * round trip in autocommit: the fence, the new pieces of the operations and the read-back, and the apply row are
   * one statement (data-modifying CTEs), where a transaction took five (BEGIN, fence, pieces, row, COMMIT); a stale
   * epoch writes nothing there, and a second statement stores the fenced record.
   */
  async recordApply(input: ApplyRecordInput, fence: EpochFence): Promise<RecordedApply> {
    const tree = this.encode(input);
    const row = applyRow(input, input.status, tree.hashes, input.reason);
    const {
      rows: [answer],
    } = await sql<{ latest: string | null; id: string | null; finished_at: Date | null }>`
      WITH fence AS (${epochRowForShare(fence.group)}),
      current AS (SELECT 1 FROM fence WHERE epoch = ${fence.epoch}),
      pieces AS (
        INSERT INTO snapshot_pieces (hash, body)
        SELECT * FROM unnest(${tree.ids}::text[], ${tree.bodies}::bytea[]) WHERE EXISTS (SELECT 1 FROM current)
        ON CONFLICT (hash) DO NOTHING
      ),
      recorded AS (
        INSERT INTO applies (${sql.join(APPLY_COLUMNS.map(([column]) => sql.ref(column)))})
        SELECT ${sql.join(APPLY_COLUMNS.map(([column, type]) => sql`${row[column]}::${sql.raw(type)}`))} WHERE EXISTS (SELECT 1 FROM current)
        RETURNING id, finished_at
      )
      SELECT (SELECT epoch FROM fence) AS latest, recorded.id, recorded.finished_at FROM (SELECT 1) AS one LEFT JOIN recorded ON true
    `.execute(this.db);
    // The statement answers one row, whatever happened: the epoch it found, and the record when it wrote one.
    if (answer === undefined || answer.id === null || answer.finished_at === null) {
      const latest = answer === undefined || answer.latest === null ? null : Number(answer.latest);
      return this.insertFenced(input, tree, new StaleEpochError(fence.group, fence.epoch, latest).message);
    }
    this.trees.confirm(tree.gen);
    return {
      id: String(answer.id),
      snapshotId: input.snapshotId,
      status: input.status,
      observedAfterHash: tree.hashes.observedAfter,
      finishedAt: new Date(answer.finished_at),
    };
  }

  /** The operations of a recorded apply, payloads included (from their value tree, or from the row in older records). */
  async operationsOf(applyId: string): Promise<Operation[] | null> {
    const row = await this.db
      .selectFrom('applies')
      .select(['id', 'operations', 'operations_hash'])
      .where('id', '=', applyId)
      .executeTakeFirst();
    return row === undefined ? null : ((await readApplyOperations(this.db, row)) as Operation[]);
  }

  /**
   * An apply's operations and read-back as one encode (so the read-back and a reload's payload share haproxy.cfg's
   * pieces), with the pieces as the statement's two arrays.
   */
  private encode(input: ApplyRecordInput): EncodedRecord {
    const values = input.observedAfter === null ? [input.operations] : [input.operations, input.observedAfter];
    const { roots, pieces, gen } = this.trees.encodeAll(values);
    return {
      hashes: { operations: roots[0]!, observedAfter: roots[1] ?? null },
      ids: [...pieces.keys()],
      bodies: [...pieces.values()].map((text) => Buffer.from(text)),
      gen,
    };
  }

  /** Reads a read-back stored with an apply (a value tree of pieces, or one plain piece for older records); null when absent. */
  async getPiece(hash: string): Promise<unknown> {
    return readValueTree(this.db, hash);
  }

  /** The last apply that may have reached the appliance (not fenced, not a hold). */
  async lastApplied(appliance: string): Promise<RecordedApply | null> {
    const row = await this.db
      .selectFrom('applies')
      .select(['id', 'snapshot_id', 'status', 'observed_after_hash', 'finished_at'])
      .where('appliance', '=', appliance)
      .where('status', 'not in', ['fenced', 'held'])
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row === undefined
      ? null
      : {
          id: String(row.id),
          snapshotId: String(row.snapshot_id),
          status: row.status as ApplyStatus,
          observedAfterHash: row.observed_after_hash,
          finishedAt: new Date(row.finished_at),
        };
  }

  /** Snapshot ids whose hold was already recorded (so a restart does not record them again). */
  async recordedHolds(appliance: string): Promise<Set<string>> {
    const rows = await this.db
      .selectFrom('applies')
      .select('snapshot_id')
      .where('appliance', '=', appliance)
      .where('status', '=', 'held')
      .orderBy('id', 'desc')
      .limit(100)
      .execute();
    return new Set(rows.map((r) => String(r.snapshot_id)));
  }

  /** Records drift found by a read-back. */
  async recordDrift(
    appliance: string,
    snapshotId: string | null,
    report: DriftReport,
    action: 'corrected' | 'reported',
  ): Promise<string> {
    const row = await this.db
      .insertInto('drift_observations')
      .values({
        appliance,
        snapshot_id: snapshotId,
        objects: JSON.stringify(report.objects),
        before: JSON.stringify(report.before),
        after: JSON.stringify(report.after),
        action,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return String(row.id);
  }

  /**
   * A record refused by its fence, stored as `fenced` with its operations (what the stale leader had to send) and
   * the read-back: pieces and row in one statement, outside the fence.
   */
  private async insertFenced(input: ApplyRecordInput, tree: EncodedRecord, reason: string): Promise<RecordedApply> {
    const row = applyRow(input, 'fenced', tree.hashes, reason);
    const {
      rows: [answer],
    } = await sql<{ id: string; finished_at: Date }>`
      WITH pieces AS (
        INSERT INTO snapshot_pieces (hash, body) SELECT * FROM unnest(${tree.ids}::text[], ${tree.bodies}::bytea[]) ON CONFLICT (hash) DO NOTHING
      )
      INSERT INTO applies (${sql.join(APPLY_COLUMNS.map(([column]) => sql.ref(column)))})
      VALUES (${sql.join(APPLY_COLUMNS.map(([column, type]) => sql`${row[column]}::${sql.raw(type)}`))})
      RETURNING id, finished_at
    `.execute(this.db);
    this.trees.confirm(tree.gen);
    return {
      id: String(answer!.id),
      snapshotId: input.snapshotId,
      status: 'fenced',
      observedAfterHash: tree.hashes.observedAfter,
      finishedAt: new Date(answer!.finished_at),
    };
  }
}

/** An apply's value trees, encoded: the two roots, the new pieces (ids and UTF-8 bodies) and the encode's generation. */
interface EncodedRecord {
  readonly hashes: { readonly operations: string; readonly observedAfter: string | null };
  readonly ids: readonly string[];
  readonly bodies: readonly Buffer[];
  readonly gen: number;
}

type ApplyRow = Omit<Insertable<AppliesTable>, 'id'>;

/** The `applies` columns a record writes, with their SQL types (a SELECT's parameters need them spelled out). */
const APPLY_COLUMNS: readonly (readonly [keyof ApplyRow, string])[] = [
  ['appliance', 'text'],
  ['snapshot_id', 'bigint'],
  ['epoch', 'bigint'],
  ['leader_id', 'text'],
  ['trigger', 'text'],
  ['status', 'text'],
  ['operations', 'jsonb'],
  ['operations_hash', 'text'],
  ['results', 'jsonb'],
  ['observed_after_hash', 'text'],
  ['reason', 'text'],
  ['started_at', 'timestamptz'],
  ['finished_at', 'timestamptz'],
  ['trace_id', 'text'],
];

function applyRow(
  input: ApplyRecordInput,
  status: ApplyStatus,
  hashes: EncodedRecord['hashes'],
  reason: string | null,
): ApplyRow {
  const results = input.outcomes.map((o) => ({
    objectType: o.operation.objectType,
    objectName: o.operation.objectName,
    action: o.operation.action,
    result: o.result,
    durationMs: o.durationMs,
  }));
  // The row lists the operations without their payloads (those are in the tree): a reload's is the whole config.
  const operations = input.operations.map((o) => ({
    objectType: o.objectType,
    objectName: o.objectName,
    action: o.action,
    summary: o.summary,
  }));
  return {
    appliance: input.appliance,
    snapshot_id: input.snapshotId,
    epoch: input.epoch,
    leader_id: input.leaderId,
    trigger: input.trigger,
    status,
    operations: JSON.stringify(operations),
    operations_hash: hashes.operations,
    results: JSON.stringify(results),
    observed_after_hash: hashes.observedAfter,
    reason,
    started_at: input.startedAt,
    finished_at: input.finishedAt,
    trace_id: input.traceId,
  };
}
