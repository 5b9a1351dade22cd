import { readOpenHolds, sql } from '@portolan/store';
import type { FleetConfig } from '@portolan/fleet-config';
import { readLeaders } from '../adapters/leader-view.ts';
import { readBusView, type BusView } from '../adapters/nats-stream-info.ts';
import { APPLIED_STATUSES } from '../adapters/pg-audit-store.ts';
import {
  statusProblems,
  watchStale,
  type ApplianceStatus,
  type ClusterStatus,
  type PlannerStatus,
  type StatusReport,
} from '../core/status-report.ts';
import { StoreUnreachableError } from '../errors.ts';
import type { AuditContext } from './audit-context.ts';

/** The planner's durable consumer (bus declaration) and its row in consumer_positions. */
const PLANNER_CONSUMER = 'planner';
/** How long the store gets to answer before status calls it unreachable. */
const STORE_PROBE_MS = 5000;

/**
 * The status report: Postgres always (when it does not answer, what can be said without it, with `storeError`);
 * Redis and NATS when reachable, otherwise a note.
 */
export async function statusReport(ctx: AuditContext, now: Date = ctx.now()): Promise<StatusReport> {
  try {
    return await buildStatus(ctx, now);
  } catch (e) {
    if (!(e instanceof StoreUnreachableError)) throw e;
    return storeDownReport(ctx, now, e);
  }
}

async function buildStatus(ctx: AuditContext, now: Date): Promise<StatusReport> {
  const { config } = ctx.fleet;
  await probeStore(ctx);
  const notes: string[] = [];
  const bus = await readBusView(config.bus.url, config.bus.stream, {
    subjectPrefix: config.bus.subjectPrefix,
    clusters: config.clusters.map((c) => c.name),
    durable: PLANNER_CONSUMER,
  });
  const ageOf = (at: Date | string): number => Math.max(0, Math.round((now.getTime() - new Date(at).getTime()) / 1000));
  const clusters: ClusterStatus[] = [];
  let heartbeatGap: number | null = null;
  for (const c of config.clusters) {
    const hb = await ctx.store.newestHeartbeat(c.name);
    const lastEvent = await ctx.store.newestEventAt(c.name);
    const at = hb?.type === 'heartbeat' ? (hb.sentAt ?? hb.at) : null;
    const ageSeconds = at === null ? null : ageOf(at);
    const p = bus.heartbeats.get(c.name);
    // Read from the stream when it could be read: the archive only holds what the planner folded.
    const publishedHeartbeat = !bus.stream.ok
      ? undefined
      : p === undefined
        ? null
        : { at: p.at.toISOString(), ageSeconds: ageOf(p.at), seq: p.seq };
    // A heartbeat in the stream newer than the archive's newest: how long the planner has left heartbeats unfolded.
    if (p !== undefined && ageSeconds !== null && hb !== null && hb.seq < p.seq)
      heartbeatGap = Math.max(heartbeatGap ?? 0, Math.max(0, ageSeconds - ageOf(p.at)));
    clusters.push({
      cluster: c.name,
      lastHeartbeat: at,
      ageSeconds,
      synced: hb?.type === 'heartbeat' ? hb.synced : null,
      watcher: hb?.type === 'heartbeat' ? hb.watcherId : null,
      lastEvent: lastEvent?.toISOString() ?? null,
      stale: watchStale(
        ageSeconds,
        publishedHeartbeat === undefined ? undefined : (publishedHeartbeat?.ageSeconds ?? null),
        c.staleAfterSeconds,
      ),
      ...(publishedHeartbeat === undefined ? {} : { publishedHeartbeat }),
    });
  }
  const groups = [...new Set(config.appliances.map((a) => a.group ?? a.name))];
  const leaders = await readLeaders(config.leases.redisUrl, ctx.db, groups);
  if (!leaders.ok) notes.push(`leaders unknown: ${leaders.message}`);
  const appliances: ApplianceStatus[] = [];
  for (const a of config.appliances)
    appliances.push(await applianceStatus(ctx, a.name, a.driver, a.group ?? a.name, leaders, now));
  const stream = await streamStatus(ctx, bus);
  const planner = plannerStatus(stream, bus, heartbeatGap, now);
  const holds = (await readOpenHolds(ctx.db, null)).map((h) => ({
    cluster: h.cluster,
    kind: h.kind,
    object: h.objectKey,
    since: h.heldAt.toISOString(),
    reason: h.reason,
    appliances: serving(config, h.cluster),
  }));
  const partial = { at: now.toISOString(), clusters, appliances, stream, holds, notes, planner };
  return { ...partial, problems: statusProblems(partial) };
}

function serving(config: FleetConfig, cluster: string): string[] {
  return config.appliances.filter((a) => a.clusters === undefined || a.clusters.includes(cluster)).map((a) => a.name);
}

/** Asks Postgres a trivial question with a deadline; any failure is the store being unreachable. */
async function probeStore(ctx: AuditContext): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new StoreUnreachableError(`no answer within ${STORE_PROBE_MS / 1000}s`)),
      STORE_PROBE_MS,
    );
  });
  try {
    await Promise.race([sql`select 1`.execute(ctx.db), deadline]);
  } catch (e) {
    throw new StoreUnreachableError(describeError(e), { cause: e });
  } finally {
    clearTimeout(timer);
  }
}

/** A pg connection failure is often an AggregateError with an empty message: name its first cause instead. */
function describeError(e: unknown): string {
  const err = e as Error & { errors?: Error[]; code?: string };
  const message = err.message !== '' ? err.message : (err.errors?.[0]?.message ?? err.code ?? String(e));
  return message;
}

/** What status can say with the store down: that, and the bus as it stands. */
async function storeDownReport(ctx: AuditContext, now: Date, e: StoreUnreachableError): Promise<StatusReport> {
  const { config } = ctx.fleet;
  const bus = await readBusView(config.bus.url, config.bus.stream, {
    subjectPrefix: config.bus.subjectPrefix,
    clusters: [],
    durable: null,
  });
  const stream = {
    stream: config.bus.stream,
    lastSeq: bus.stream.ok ? bus.stream.lastSeq : null,
    error: bus.stream.ok ? null : bus.stream.message,
    archivedSeq: 0,
    consumers: [],
  };
  const partial = {
    at: now.toISOString(),
    clusters: [],
    appliances: [],
    stream,
    holds: [],
    notes: [],
    storeError: e.message,
  };
  return { ...partial, problems: statusProblems(partial) };
}

async function applianceStatus(
  ctx: AuditContext,
  name: string,
  driver: string,
  group: string,
  leaders: Awaited<ReturnType<typeof readLeaders>>,
  now: Date,
): Promise<ApplianceStatus> {
  const [head, last, applied, pin] = await Promise.all([
    ctx.store.head(name),
    ctx.store.lastApply(name, undefined),
    ctx.store.lastApply(name, APPLIED_STATUSES),
    ctx.store.pin(name),
  ]);
  const lag = await ctx.store.snapshotsAfter(name, applied?.snapshotId ?? null);
  const g = leaders.ok ? leaders.groups.get(group) : undefined;
  const epochOnly = leaders.ok ? undefined : leaders.epochs.get(group);
  return {
    appliance: name,
    driver,
    group,
    leader: g?.holder ?? null,
    epoch: g?.epoch ?? epochOnly?.epoch ?? null,
    head:
      head === null
        ? null
        : {
            id: head.id,
            at: head.createdAt.toISOString(),
            held: head.held,
            holdReason: head.holdReason,
            origin: head.origin,
          },
    lastApply:
      last === null
        ? null
        : {
            id: last.id,
            snapshot: last.snapshotId,
            status: last.status,
            finishedAt: last.finishedAt.toISOString(),
            epoch: last.epoch,
          },
    lastAppliedSnapshot: applied?.snapshotId ?? null,
    lag: {
      snapshots: lag.count,
      oldestAgeSeconds:
        lag.oldest === null ? null : Math.max(0, Math.round((now.getTime() - lag.oldest.getTime()) / 1000)),
    },
    pinnedTo: pin?.snapshotId ?? null,
  };
}

async function streamStatus(ctx: AuditContext, bus: BusView): Promise<StatusReport['stream']> {
  const [positions, archivedSeq] = await Promise.all([ctx.store.consumerPositions(), ctx.store.lastArchivedSeq()]);
  const info = bus.stream;
  const lastSeq = info.ok ? info.lastSeq : null;
  return {
    stream: info.stream,
    lastSeq,
    error: info.ok ? null : info.message,
    archivedSeq,
    consumers: positions.map((p) => ({
      consumer: p.consumer,
      position: p.streamSeq,
      lag: lastSeq === null ? null : Math.max(0, lastSeq - p.streamSeq),
      updatedAt: p.updatedAt.toISOString(),
    })),
  };
}

/** The planner's committed position and how long since it moved, against the stream and the heartbeats in it. */
function plannerStatus(
  stream: StatusReport['stream'],
  bus: BusView,
  heartbeatGapSeconds: number | null,
  now: Date,
): PlannerStatus {
  const row = stream.consumers.find((c) => c.consumer === PLANNER_CONSUMER);
  return {
    consumer: PLANNER_CONSUMER,
    position: row?.position ?? null,
    positionAgeSeconds:
      row === undefined ? null : Math.max(0, Math.round((now.getTime() - Date.parse(row.updatedAt)) / 1000)),
    lag: stream.lastSeq === null ? null : Math.max(0, stream.lastSeq - (row?.position ?? 0)),
    heartbeatGapSeconds,
    redelivered: bus.consumer?.redelivered ?? null,
  };
}
