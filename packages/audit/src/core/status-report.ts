import { formatTable } from './text-table.ts';

/** One cluster's watch freshness, from the newest archived heartbeat. */
export interface ClusterStatus {
  readonly cluster: string;
  readonly lastHeartbeat: string | null;
  readonly ageSeconds: number | null;
  readonly synced: boolean | null;
  readonly watcher: string | null;
  readonly lastEvent: string | null;
  /** The watcher is silent: no heartbeat published (in the stream when it could be read, else archived) within staleAfterSeconds. */
  readonly stale: boolean;
  /** The newest heartbeat in the stream, folded or not (absent or null when the bus could not be read or holds none). */
  readonly publishedHeartbeat?: { readonly at: string; readonly ageSeconds: number; readonly seq: number } | null;
}

/** One appliance: who leads, what was last applied, how far applies lag plans. */
export interface ApplianceStatus {
  readonly appliance: string;
  readonly driver: string;
  readonly group: string;
  readonly leader: string | null;
  readonly epoch: number | null;
  readonly head: {
    readonly id: string;
    readonly at: string;
    readonly held: boolean;
    readonly holdReason: string | null;
    readonly origin: string;
  } | null;
  readonly lastApply: {
    readonly id: string;
    readonly snapshot: string;
    readonly status: string;
    readonly finishedAt: string;
    readonly epoch: number;
  } | null;
  /** The snapshot the appliance last converged to (succeeded, partial or no-op apply). */
  readonly lastAppliedSnapshot: string | null;
  /** Unheld snapshots newer than the last applied one, and the age of the oldest. */
  readonly lag: { readonly snapshots: number; readonly oldestAgeSeconds: number | null };
  readonly pinnedTo: string | null;
}

/** One removal the safety rule holds, and the appliances whose desired state keeps it. */
export interface HoldStatus {
  readonly cluster: string;
  readonly kind: string;
  readonly object: string;
  readonly since: string;
  readonly reason: string;
  readonly appliances: readonly string[];
}

/** The bus and the durable consumers' positions. */
export interface StreamStatus {
  readonly stream: string;
  readonly lastSeq: number | null;
  readonly error: string | null;
  readonly archivedSeq: number;
  readonly consumers: readonly {
    readonly consumer: string;
    readonly position: number;
    readonly lag: number | null;
    readonly updatedAt: string;
  }[];
}

/**
 * The planner as the stream and the store see it: its committed position (Postgres), how long since that moved, the
 * stream's last sequence beyond it, and how far the archive's newest heartbeat trails the stream's.
 */
export interface PlannerStatus {
  readonly consumer: string;
  /** Committed stream position; null when the planner never committed one. */
  readonly position: number | null;
  /** Seconds since the position last moved. */
  readonly positionAgeSeconds: number | null;
  /** Stream messages beyond the committed position; null when the stream could not be read. */
  readonly lag: number | null;
  /** Largest gap, over clusters, between the newest published and the newest archived heartbeat (seconds). */
  readonly heartbeatGapSeconds: number | null;
  /** Redeliveries JetStream counts on the planner's durable consumer (batches that failed or timed out). */
  readonly redelivered: number | null;
}

/** Thresholds of the verdict (seconds). */
export interface StatusThresholds {
  /** A planner with lag whose position has not moved for longer is not consuming. */
  readonly plannerStallSeconds: number;
  /** An unapplied unheld snapshot older than this, while a leader exists, is an apply that is not happening. */
  readonly applyStallSeconds: number;
}

/** The defaults: heartbeats come every few seconds, so 30 s without progress is not a slow batch. */
export const DEFAULT_STATUS_THRESHOLDS: StatusThresholds = { plannerStallSeconds: 30, applyStallSeconds: 120 };

/** `portolan status` as data. */
export interface StatusReport {
  readonly at: string;
  readonly clusters: readonly ClusterStatus[];
  readonly appliances: readonly ApplianceStatus[];
  readonly stream: StreamStatus;
  /** Removals the safety rule holds (each waits for an approval, a DELETED event or a confirming relist). */
  readonly holds: readonly HoldStatus[];
  /** What needs attention; empty when everything is healthy (the command then exits 0). */
  readonly problems: readonly string[];
  readonly notes: readonly string[];
  /** The planner's progress (absent in reports made before it was read, and when the store is unreachable). */
  readonly planner?: PlannerStatus;
  /** Set when Postgres could not be reached: nothing else the store holds could be read. */
  readonly storeError?: string | null;
}

/** Whether a cluster's watcher is silent: judged on the stream's newest heartbeat when known, else on the archive's. */
export function watchStale(
  archivedAgeSeconds: number | null,
  publishedAgeSeconds: number | null | undefined,
  staleAfterSeconds: number,
): boolean {
  const age = publishedAgeSeconds === undefined ? archivedAgeSeconds : publishedAgeSeconds;
  return age === null || age > staleAfterSeconds;
}

/** Why the planner is not consuming, or null when it is (or nothing says otherwise). */
export function plannerProblem(p: PlannerStatus, t: StatusThresholds = DEFAULT_STATUS_THRESHOLDS): string | null {
  const lagging = p.lag !== null && p.lag > 0;
  const stuck = p.position === null || (p.positionAgeSeconds !== null && p.positionAgeSeconds > t.plannerStallSeconds);
  const unfolded = p.heartbeatGapSeconds !== null && p.heartbeatGapSeconds > t.plannerStallSeconds;
  if (!(lagging && stuck) && !unfolded) return null;
  const where =
    p.position === null ? 'no committed position' : `position unchanged for ${p.positionAgeSeconds ?? '?'}s`;
  const extra = [
    ...(unfolded ? [`newest heartbeat archived ${p.heartbeatGapSeconds}s behind the stream`] : []),
    ...(p.redelivered !== null && p.redelivered > 0 ? [`${p.redelivered} redelivered`] : []),
  ];
  return `planner: not consuming (lag ${p.lag ?? '?'}, ${where}${extra.map((e) => `; ${e}`).join('')})`;
}

/**
 * Problems worth a non-zero exit, each naming the component at fault: an unreachable store, a silent watcher, a planner
 * not consuming, no leader, failed or stalled applies, held heads and removals, an unreachable bus.
 */
export function statusProblems(
  r: Omit<StatusReport, 'problems'>,
  t: StatusThresholds = DEFAULT_STATUS_THRESHOLDS,
): string[] {
  if (typeof r.storeError === 'string')
    return [`store: unreachable (${r.storeError})`, ...(r.stream.error !== null ? [`bus: ${r.stream.error}`] : [])];
  const out: string[] = [];
  for (const c of r.clusters) if (c.stale) out.push(clusterProblem(c));
  const planner = r.planner === undefined ? null : plannerProblem(r.planner, t);
  if (planner !== null) out.push(planner);
  for (const a of r.appliances) {
    if (a.leader === null) out.push(`appliance ${a.appliance}: no leader holds group ${a.group}`);
    if (a.lastApply !== null && (a.lastApply.status === 'failed' || a.lastApply.status === 'partial'))
      out.push(`appliance ${a.appliance}: last apply ${a.lastApply.id} ${a.lastApply.status}`);
    else if (a.leader !== null && a.lag.snapshots > 0 && (a.lag.oldestAgeSeconds ?? 0) > t.applyStallSeconds) {
      out.push(
        `appliance ${a.appliance}: ${a.lag.snapshots} snapshot(s) not applied, oldest ${a.lag.oldestAgeSeconds}s old (leader ${a.leader})`,
      );
    }
    if (a.head?.held === true)
      out.push(`appliance ${a.appliance}: head snapshot ${a.head.id} held (${a.head.holdReason ?? ''})`);
  }
  const byAppliance = new Map<string, HoldStatus[]>();
  for (const h of r.holds) for (const a of h.appliances) byAppliance.set(a, [...(byAppliance.get(a) ?? []), h]);
  for (const [appliance, holds] of byAppliance) {
    const clusters = [...new Set(holds.map((h) => h.cluster))].join(', ');
    out.push(
      `appliance ${appliance}: ${holds.length} removal(s) held by the safety rule in ${clusters} since ${holds[0]!.since} (approve: portolan approve ${appliance} --reason "...")`,
    );
  }
  if (r.stream.error !== null) out.push(`bus: ${r.stream.error}`);
  return out;
}

function clusterProblem(c: ClusterStatus): string {
  if (c.publishedHeartbeat === undefined)
    return c.lastHeartbeat === null
      ? `cluster ${c.cluster}: no heartbeat archived`
      : `cluster ${c.cluster}: watch stale (last heartbeat ${c.ageSeconds}s ago)`;
  if (c.publishedHeartbeat === null) return `cluster ${c.cluster}: watch stale (no heartbeat in the stream)`;
  return `cluster ${c.cluster}: watch stale (last heartbeat published ${c.publishedHeartbeat.ageSeconds}s ago)`;
}

const age = (s: number | null): string =>
  s === null ? '-' : s < 120 ? `${Math.round(s)}s` : s < 7200 ? `${Math.round(s / 60)}m` : `${Math.round(s / 3600)}h`;

function plannerLine(p: PlannerStatus): string {
  const position =
    p.position === null ? 'no committed position' : `position ${p.position}, moved ${age(p.positionAgeSeconds)} ago`;
  const gap =
    p.heartbeatGapSeconds === null
      ? ''
      : `, archive's newest heartbeat ${age(p.heartbeatGapSeconds)} behind the stream's`;
  return `planner: ${position}, lag ${p.lag ?? '-'}${gap}${p.redelivered ? `, ${p.redelivered} redelivered` : ''}\n`;
}

/** The status report as three tables and a problem list. */
export function formatStatusTable(r: StatusReport): string {
  if (typeof r.storeError === 'string')
    return `STORE\nunreachable: ${r.storeError}\n\nPROBLEMS\n${r.problems.map((p) => `- ${p}`).join('\n')}\n`;
  let out = 'CLUSTERS\n';
  out += formatTable(
    ['CLUSTER', 'LAST HEARTBEAT', 'AGE', 'PUBLISHED', 'SYNCED', 'LAST EVENT', 'STATE'],
    r.clusters.map((c) => [
      c.cluster,
      c.lastHeartbeat ?? '-',
      age(c.ageSeconds),
      c.publishedHeartbeat === undefined || c.publishedHeartbeat === null ? '-' : age(c.publishedHeartbeat.ageSeconds),
      c.synced === null ? '-' : c.synced ? 'yes' : 'no',
      c.lastEvent ?? '-',
      c.stale ? 'STALE' : 'fresh',
    ]),
  );
  out += '\nAPPLIANCES\n';
  out += formatTable(
    ['APPLIANCE', 'DRIVER', 'LEADER', 'EPOCH', 'HEAD', 'LAST APPLY', 'APPLIED', 'LAG'],
    r.appliances.map((a) => [
      a.appliance,
      a.driver,
      a.leader ?? '(none)',
      a.epoch === null ? '-' : String(a.epoch),
      a.head === null
        ? '-'
        : `${a.head.id}${a.head.held ? ' held' : ''}${a.head.origin === 'rollback' ? ' rollback' : ''}${a.pinnedTo !== null ? ` pinned→${a.pinnedTo}` : ''}`,
      a.lastApply === null ? '-' : `${a.lastApply.id} ${a.lastApply.status} ${a.lastApply.finishedAt}`,
      a.lastAppliedSnapshot ?? '-',
      a.lag.snapshots === 0 ? 'in sync' : `${a.lag.snapshots} snapshot(s), oldest ${age(a.lag.oldestAgeSeconds)}`,
    ]),
  );
  out += '\nSTREAM\n';
  out +=
    r.stream.error !== null
      ? `${r.stream.stream}: ${r.stream.error}\n`
      : `${r.stream.stream}: last seq ${r.stream.lastSeq ?? '-'}, archived up to ${r.stream.archivedSeq}\n`;
  if (r.planner !== undefined) out += plannerLine(r.planner);
  if (r.stream.consumers.length > 0)
    out += formatTable(
      ['CONSUMER', 'POSITION', 'LAG', 'UPDATED'],
      r.stream.consumers.map((c) => [
        c.consumer,
        String(c.position),
        c.lag === null ? '-' : String(c.lag),
        c.updatedAt,
      ]),
    );
  if (r.holds.length > 0) {
    out += '\nHELD REMOVALS\n';
    out += formatTable(
      ['CLUSTER', 'KIND', 'OBJECT', 'SINCE', 'APPLIANCES', 'REASON'],
      r.holds.map((h) => [h.cluster, h.kind, h.object, h.since, h.appliances.join(','), h.reason]),
    );
  }
  for (const n of r.notes) out += `note: ${n}\n`;
  out += r.problems.length === 0 ? '\nAll healthy.\n' : `\nPROBLEMS\n${r.problems.map((p) => `- ${p}`).join('\n')}\n`;
  return out;
}
