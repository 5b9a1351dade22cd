import type { KubeKind } from '@portolan/desired-state';
import {
  readApplyOperations,
  readPin,
  readValueTree,
  sql,
  type Database,
  type Kysely,
  type SnapshotPin,
} from '@portolan/store';
import { decodeArchivedChange, type ArchivedChange, type ObjectChange } from '../core/archived-change.ts';
import type { ApplyRecord, DriftRecord, SnapshotRecord } from '../core/history-report.ts';
import { APPLY_COLUMNS, SNAPSHOT_COLUMNS, toApply, toSnapshot, type SnapshotRow } from './audit-rows.ts';

/** Apply statuses after which the appliance may hold the target (the read-back is then what it held). */
export const APPLIED_STATUSES = ['succeeded', 'partial', 'noop'] as const;

/** A rollback pin as stored in `snapshot_pins`. */
export type PinRecord = SnapshotPin;

/** How the archive may spell a kind (the planner shell's choice): the audit matches all of them. */
export function kindSpellings(kind: KubeKind): string[] {
  const snake = kind.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
  return [kind, kind.toLowerCase(), `KUBE_KIND_${snake}`];
}

/**
 * Read side of the audit (plus the pin table it owns): snapshots, applies, drift, the event archive and
 * pieces, as plain records. Queries use the indexes of migration 0001 (appliance/time, appliance/parent, seq).
 */
export class PgAuditStore {
  readonly db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  /** One snapshot by id; null when absent. */
  async snapshot(id: string): Promise<SnapshotRecord | null> {
    if (!/^\d+$/.test(id)) return null;
    const row = await this.db.selectFrom('snapshots').select(SNAPSHOT_COLUMNS).where('id', '=', id).executeTakeFirst();
    return row === undefined ? null : toSnapshot(row as SnapshotRow);
  }

  /** The appliance's head snapshot; null before its first plan. */
  async head(appliance: string): Promise<SnapshotRecord | null> {
    const row = await this.db
      .selectFrom('snapshot_heads as h')
      .innerJoin('snapshots as s', 's.id', 'h.snapshot_id')
      .select(SNAPSHOT_COLUMNS.map((c) => `s.${c}` as const))
      .where('h.appliance', '=', appliance)
      .executeTakeFirst();
    return row === undefined ? null : toSnapshot(row as unknown as SnapshotRow);
  }

  /** Snapshots of one appliance, oldest first (the chain is linear, so id order is chain order). */
  async snapshots(
    appliance: string,
    window: { since?: Date | null; until?: Date | null; maxId?: string; limit?: number; newestFirst?: boolean } = {},
  ): Promise<SnapshotRecord[]> {
    let q = this.db.selectFrom('snapshots').select(SNAPSHOT_COLUMNS).where('appliance', '=', appliance);
    if (window.since) q = q.where('created_at', '>=', window.since);
    if (window.until) q = q.where('created_at', '<=', window.until);
    if (window.maxId !== undefined) q = q.where('id', '<=', window.maxId);
    q = q.orderBy('id', window.newestFirst === true ? 'desc' : 'asc');
    if (window.limit !== undefined) q = q.limit(window.limit);
    return (await q.execute()).map((r) => toSnapshot(r as SnapshotRow));
  }

  /** Appliances that have at least one snapshot (for error messages naming what exists). */
  async appliancesWithSnapshots(): Promise<string[]> {
    const rows = await this.db.selectFrom('snapshot_heads').select('appliance').orderBy('appliance').execute();
    return rows.map((r) => r.appliance);
  }

  /** Applies of one appliance by finish time (ties by id), optionally within a window. */
  async applies(appliance: string, window: { since?: Date | null; until?: Date | null } = {}): Promise<ApplyRecord[]> {
    let q = this.db.selectFrom('applies').select(APPLY_COLUMNS).where('appliance', '=', appliance);
    if (window.since) q = q.where('finished_at', '>=', window.since);
    if (window.until) q = q.where('finished_at', '<=', window.until);
    return (await q.orderBy('finished_at').orderBy('id').execute()).map(toApply);
  }

  /** The newest apply that finished at or before `at` and may have reached the appliance, with a read-back. */
  async lastAppliedAt(appliance: string, at: Date): Promise<ApplyRecord | null> {
    const row = await this.db
      .selectFrom('applies')
      .select(APPLY_COLUMNS)
      .where('appliance', '=', appliance)
      .where('status', 'in', [...APPLIED_STATUSES])
      .where('observed_after_hash', 'is not', null)
      .where('finished_at', '<=', at)
      .orderBy('finished_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row === undefined ? null : toApply(row);
  }

  /** The newest apply of any status (status: what happened last). */
  async lastApply(appliance: string, statuses?: readonly string[]): Promise<ApplyRecord | null> {
    let q = this.db.selectFrom('applies').select(APPLY_COLUMNS).where('appliance', '=', appliance);
    if (statuses !== undefined) q = q.where('status', 'in', [...statuses]);
    const row = await q.orderBy('id', 'desc').limit(1).executeTakeFirst();
    return row === undefined ? null : toApply(row);
  }

  /** One apply, the operations it recorded (payloads included) and their results; null for an unknown id. */
  async applyWithOperations(
    id: string,
  ): Promise<{ appliance: string; apply: ApplyRecord; operations: unknown[]; results: unknown[] } | null> {
    if (!/^\d+$/.test(id)) return null;
    const row = await this.db
      .selectFrom('applies')
      .select([...APPLY_COLUMNS, 'appliance', 'operations_hash'])
      .where('id', '=', id)
      .executeTakeFirst();
    if (row === undefined) return null;
    return {
      appliance: row.appliance,
      apply: toApply(row),
      operations: await readApplyOperations(this.db, row),
      results: Array.isArray(row.results) ? row.results : [],
    };
  }

  /** Applies of one snapshot, oldest first (rollback --wait polls this). */
  async appliesOf(snapshotId: string): Promise<ApplyRecord[]> {
    return (
      await this.db
        .selectFrom('applies')
        .select(APPLY_COLUMNS)
        .where('snapshot_id', '=', snapshotId)
        .orderBy('id')
        .execute()
    ).map(toApply);
  }

  /** Drift observations of one appliance in a window, oldest first. */
  async drift(appliance: string, window: { since?: Date | null; until?: Date | null } = {}): Promise<DriftRecord[]> {
    let q = this.db
      .selectFrom('drift_observations')
      .select(['id', 'snapshot_id', 'objects', 'action', 'observed_at'])
      .where('appliance', '=', appliance);
    if (window.since) q = q.where('observed_at', '>=', window.since);
    if (window.until) q = q.where('observed_at', '<=', window.until);
    const rows = await q.orderBy('observed_at').orderBy('id').execute();
    return rows.map((r) => ({
      id: String(r.id),
      snapshotId: r.snapshot_id === null ? null : String(r.snapshot_id),
      action: r.action,
      observedAt: new Date(r.observed_at),
      objects: Array.isArray(r.objects) ? (r.objects as unknown[]).map(String) : [],
    }));
  }

  /** Archived object changes with from < seq ≤ to (markers and heartbeats skipped), at most `limit`, and the total count. */
  async changes(fromSeq: number, toSeq: number, limit = 5000): Promise<{ changes: ObjectChange[]; total: number }> {
    if (toSeq <= fromSeq) return { changes: [], total: 0 };
    const base = this.db
      .selectFrom('events')
      .where('seq', '>', String(fromSeq))
      .where('seq', '<=', String(toSeq))
      .where('subject', 'not like', '%.heartbeat');
    const [rows, count] = await Promise.all([
      base.select(['seq', 'subject', 'payload', 'received_at', 'trace_id']).orderBy('seq').limit(limit).execute(),
      base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
    ]);
    const changes = rows
      .map((r) =>
        decodeArchivedChange({
          seq: Number(r.seq),
          subject: r.subject,
          payload: r.payload,
          receivedAt: new Date(r.received_at),
          traceId: r.trace_id,
        }),
      )
      .filter((c): c is ObjectChange => c.type === 'event');
    return { changes, total: Number(count.n) };
  }

  /** The archived events of one object with seq ≤ maxSeq, newest first. */
  async objectEvents(
    ref: { cluster: string; kind: KubeKind; namespace: string; name: string },
    maxSeq: number,
    limit = 10,
  ): Promise<ObjectChange[]> {
    const key = ref.namespace === '' ? ref.name : `${ref.namespace}/${ref.name}`;
    const rows = await this.db
      .selectFrom('events')
      .select(['seq', 'subject', 'payload', 'received_at', 'trace_id'])
      .where('cluster', '=', ref.cluster)
      .where('kind', 'in', kindSpellings(ref.kind))
      .where('object_key', '=', key)
      .where('seq', '<=', String(maxSeq))
      .orderBy('seq', 'desc')
      .limit(limit)
      .execute();
    return rows
      .map((r) =>
        decodeArchivedChange({
          seq: Number(r.seq),
          subject: r.subject,
          payload: r.payload,
          receivedAt: new Date(r.received_at),
          traceId: r.trace_id,
        }),
      )
      .filter((c): c is ObjectChange => c.type === 'event');
  }

  /** EndpointSlices of a Service as of maxSeq: the newest event of each slice labelled with it, deleted ones left out. */
  async slicesOf(
    cluster: string,
    namespace: string,
    service: string,
    maxSeq: number,
    scanLimit = 20_000,
  ): Promise<ObjectChange[]> {
    const rows = await this.db
      .selectFrom('events')
      .select(['seq', 'subject', 'payload', 'received_at', 'trace_id'])
      .where('cluster', '=', cluster)
      .where('kind', 'in', kindSpellings('EndpointSlice'))
      .where('object_key', 'like', `${namespace.replace(/[\\%_]/g, '\\$&')}/%`)
      .where('seq', '<=', String(maxSeq))
      .orderBy('seq', 'desc')
      .limit(scanLimit)
      .execute();
    const newest = new Map<string, ArchivedChange>();
    for (const r of rows) {
      const c = decodeArchivedChange({
        seq: Number(r.seq),
        subject: r.subject,
        payload: r.payload,
        receivedAt: new Date(r.received_at),
        traceId: r.trace_id,
      });
      if (c.type === 'event' && !newest.has(c.name)) newest.set(c.name, c);
    }
    return [...newest.values()].filter(
      (c): c is ObjectChange => c.type === 'event' && c.event !== 'DELETED' && c.service === service,
    );
  }

  /** A stored read-back (a value tree, or a plain JSON piece); null when absent. */
  async pieceJson(hash: string): Promise<unknown> {
    return readValueTree(this.db, hash);
  }

  /** The appliance's rollback pin; null when planning is not pinned. */
  pin(appliance: string): Promise<PinRecord | null> {
    return readPin(this.db, appliance);
  }

  /** Pins (or re-pins) an appliance to a snapshot, naming who did. */
  async setPin(appliance: string, snapshotId: string, reason: string | null, actor: string | null): Promise<void> {
    await this.db
      .insertInto('snapshot_pins')
      .values({ appliance, snapshot_id: snapshotId, reason, actor })
      .onConflict((c) =>
        c.column('appliance').doUpdateSet({ snapshot_id: snapshotId, reason, actor, created_at: sql`now()` }),
      )
      .execute();
  }

  /** Removes a pin; returns the removed pin (null when there was none). */
  async removePin(appliance: string): Promise<PinRecord | null> {
    const row = await this.db
      .deleteFrom('snapshot_pins')
      .where('appliance', '=', appliance)
      .returningAll()
      .executeTakeFirst();
    return row === undefined
      ? null
      : {
          appliance: row.appliance,
          snapshotId: String(row.snapshot_id),
          reason: row.reason,
          createdAt: new Date(row.created_at),
          actor: row.actor,
        };
  }

  /** The newest archived heartbeat of a cluster (by stream sequence); null when the archive has none. */
  async newestHeartbeat(cluster: string): Promise<ArchivedChange | null> {
    const row = await this.db
      .selectFrom('events')
      .select(['seq', 'subject', 'payload', 'received_at', 'trace_id'])
      .where('cluster', '=', cluster)
      .where('subject', 'like', '%.heartbeat')
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row === undefined
      ? null
      : decodeArchivedChange({
          seq: Number(row.seq),
          subject: row.subject,
          payload: row.payload,
          receivedAt: new Date(row.received_at),
          traceId: row.trace_id,
        });
  }

  /** The newest archived message of a cluster that is not a heartbeat (when its watcher last reported a change). */
  async newestEventAt(cluster: string): Promise<Date | null> {
    const row = await this.db
      .selectFrom('events')
      .select('received_at')
      .where('cluster', '=', cluster)
      .where('subject', 'not like', '%.heartbeat')
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row === undefined ? null : new Date(row.received_at);
  }

  /** Every durable consumer position. */
  async consumerPositions(): Promise<{ consumer: string; streamSeq: number; updatedAt: Date }[]> {
    const rows = await this.db.selectFrom('consumer_positions').selectAll().orderBy('consumer').execute();
    return rows.map((r) => ({
      consumer: r.consumer,
      streamSeq: Number(r.stream_seq),
      updatedAt: new Date(r.updated_at),
    }));
  }

  /** Highest archived stream sequence (0 when empty). */
  async lastArchivedSeq(): Promise<number> {
    const row = await this.db
      .selectFrom('events')
      .select((eb) => eb.fn.max('seq').as('m'))
      .executeTakeFirst();
    return row?.m === null || row?.m === undefined ? 0 : Number(row.m);
  }

  /** Snapshots of an appliance newer than `afterId` (how far its applies lag its plans). */
  async snapshotsAfter(appliance: string, afterId: string | null): Promise<{ count: number; oldest: Date | null }> {
    let q = this.db
      .selectFrom('snapshots')
      .select((eb) => [eb.fn.countAll<string>().as('n'), eb.fn.min('created_at').as('oldest')])
      .where('appliance', '=', appliance)
      .where('held', '=', false);
    if (afterId !== null) q = q.where('id', '>', afterId);
    const row = await q.executeTakeFirstOrThrow();
    return { count: Number(row.n), oldest: row.oldest === null ? null : new Date(row.oldest as Date) };
  }
}
