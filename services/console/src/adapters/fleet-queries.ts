import type { FleetConfig } from '@portolan/fleet-config';
import { readPins, sql, type Database, type Kysely } from '@portolan/store';

/** One appliance as the fleet overview lists it. */
export interface ApplianceSummary {
  readonly name: string;
  readonly driver: string;
  readonly clusters: string[];
  readonly head: { id: string; createdAt: string; origin: string; held: boolean; holdReason: string | null } | null;
  readonly pin: { snapshotId: string; reason: string | null; since: string; actor: string | null } | null;
  readonly lastApply: { id: string; status: string; finishedAt: string; snapshotId: string } | null;
}

/** One apply as the latency and lag charts plot it. */
export interface ApplyPoint {
  readonly at: string;
  readonly snapshotId: string;
  readonly status: string;
  readonly trigger: string;
  readonly durationMs: number;
  readonly lagMs: number | null;
}

/** Every appliance of the fleet config with its head snapshot, rollback pin and last apply (three queries in all). */
export async function applianceSummaries(db: Kysely<Database>, config: FleetConfig): Promise<ApplianceSummary[]> {
  const names = config.appliances.map((a) => a.name);
  const [heads, pins, applies] = await Promise.all([
    db
      .selectFrom('snapshot_heads as h')
      .innerJoin('snapshots as s', 's.id', 'h.snapshot_id')
      .select(['s.appliance', 's.id', 's.created_at', 's.origin', 's.held', 's.hold_reason'])
      .where('s.appliance', 'in', names)
      .execute(),
    readPins(db),
    sql<{ appliance: string; id: string; status: string; finished_at: Date; snapshot_id: string }>`
      SELECT DISTINCT ON (appliance) appliance, id, status, finished_at, snapshot_id FROM applies
      WHERE appliance = ANY(${names}) ORDER BY appliance, id DESC`.execute(db),
  ]);
  const all = config.clusters.map((c) => c.name);
  return config.appliances.map((a) => {
    const h = heads.find((x) => x.appliance === a.name);
    const p = pins.get(a.name);
    const l = applies.rows.find((x) => x.appliance === a.name);
    return {
      name: a.name,
      driver: a.driver,
      clusters: a.clusters ?? all,
      head:
        h === undefined
          ? null
          : {
              id: String(h.id),
              createdAt: new Date(h.created_at).toISOString(),
              origin: h.origin,
              held: h.held,
              holdReason: h.hold_reason,
            },
      pin:
        p === undefined
          ? null
          : { snapshotId: p.snapshotId, reason: p.reason, since: p.createdAt.toISOString(), actor: p.actor },
      lastApply:
        l === undefined
          ? null
          : {
              id: String(l.id),
              status: l.status,
              finishedAt: l.finished_at.toISOString(),
              snapshotId: String(l.snapshot_id),
            },
    };
  });
}

/**
 * The appliance's applies since `since` (at most the newest `limit`), oldest first, each with its duration and its
 * lag: from the archiving of the last Kubernetes change its snapshot folds to the end of the apply.
 */
export async function applyPoints(
  db: Kysely<Database>,
  appliance: string,
  since: Date,
  limit = 2000,
): Promise<ApplyPoint[]> {
  const { rows } = await sql<{
    finished_at: Date;
    started_at: Date;
    snapshot_id: string;
    status: string;
    trigger: string;
    received_at: Date | null;
  }>`
    SELECT * FROM (
      SELECT a.id, a.finished_at, a.started_at, a.snapshot_id, a.status, a.trigger, e.received_at
      FROM applies a
      JOIN snapshots s ON s.id = a.snapshot_id
      LEFT JOIN events e ON e.seq = s.last_event_seq AND s.origin = 'plan'
      WHERE a.appliance = ${appliance} AND a.finished_at >= ${since}
      ORDER BY a.id DESC LIMIT ${limit}
    ) newest ORDER BY id`.execute(db);
  return rows.map((r) => ({
    at: r.finished_at.toISOString(),
    snapshotId: String(r.snapshot_id),
    status: r.status,
    trigger: r.trigger,
    durationMs: r.finished_at.getTime() - r.started_at.getTime(),
    // Only the first apply of a snapshot measures the change's lag; retries and drift corrections come later.
    lagMs:
      r.received_at === null || r.trigger !== 'snapshot'
        ? null
        : Math.max(0, r.finished_at.getTime() - r.received_at.getTime()),
  }));
}
