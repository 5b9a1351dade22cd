import { readOpenHolds } from '@portolan/store';
import type { CommandIo } from '../adapters/command-io.ts';
import { readLeaders } from '../adapters/leader-view.ts';
import { readStreamInfo } from '../adapters/nats-stream-info.ts';
import { APPLIED_STATUSES } from '../adapters/pg-audit-store.ts';
import { formatStatusTable, statusProblems, type ApplianceStatus, type ClusterStatus, type StatusReport } from '../core/status-report.ts';
import { commonOptions, outputFormat, parseCommand, printReport, withContext, type AuditContext } from './audit-context.ts';

/** `portolan status`: cluster watch freshness, appliance leaders and apply lag, stream and consumer lag. */
export async function runStatus(args: readonly string[], io: CommandIo): Promise<number> {
  const { values } = parseCommand(args, { ...commonOptions }, { min: 0, max: 0, names: '' });
  const format = outputFormat(values.output);
  return withContext(io, 'status', values.config, async (ctx) => {
    const report = await statusReport(ctx, io.now());
    printReport(io, format, report, formatStatusTable);
    return report.problems.length === 0 ? 0 : 1;
  });
}

/** Builds the status report (Postgres always; Redis and NATS when reachable, otherwise a note). */
export async function statusReport(ctx: AuditContext, now: Date): Promise<StatusReport> {
  const { config } = ctx.fleet;
  const notes: string[] = [];
  const clusters: ClusterStatus[] = [];
  for (const c of config.clusters) {
    const hb = await ctx.store.newestHeartbeat(c.name);
    const lastEvent = await ctx.store.newestEventAt(c.name);
    const at = hb?.type === 'heartbeat' ? (hb.sentAt ?? hb.at) : null;
    const ageSeconds = at === null ? null : Math.max(0, Math.round((now.getTime() - Date.parse(at)) / 1000));
    clusters.push({
      cluster: c.name, lastHeartbeat: at, ageSeconds, synced: hb?.type === 'heartbeat' ? hb.synced : null, watcher: hb?.type === 'heartbeat' ? hb.watcherId : null,
      lastEvent: lastEvent?.toISOString() ?? null, stale: ageSeconds === null || ageSeconds > c.staleAfterSeconds,
    });
  }
  const groups = [...new Set(config.appliances.map((a) => a.group ?? a.name))];
  const leaders = await readLeaders(config.leases.redisUrl, ctx.db, groups);
  if (!leaders.ok) notes.push(`leaders unknown: ${leaders.message}`);
  const appliances: ApplianceStatus[] = [];
  for (const a of config.appliances) appliances.push(await applianceStatus(ctx, a.name, a.driver, a.group ?? a.name, leaders, now));
  const stream = await streamStatus(ctx, config.bus.url, config.bus.stream);
  const serving = (cluster: string): string[] => config.appliances.filter((a) => a.clusters === undefined || a.clusters.includes(cluster)).map((a) => a.name);
  const holds = (await readOpenHolds(ctx.db, null)).map((h) => ({ cluster: h.cluster, kind: h.kind, object: h.objectKey, since: h.heldAt.toISOString(), reason: h.reason, appliances: serving(h.cluster) }));
  const partial = { at: now.toISOString(), clusters, appliances, stream, holds, notes };
  return { ...partial, problems: statusProblems(partial) };
}

async function applianceStatus(ctx: AuditContext, name: string, driver: string, group: string, leaders: Awaited<ReturnType<typeof readLeaders>>, now: Date): Promise<ApplianceStatus> {
  const [head, last, applied, pin] = await Promise.all([ctx.store.head(name), ctx.store.lastApply(name, undefined), ctx.store.lastApply(name, APPLIED_STATUSES), ctx.store.pin(name)]);
  const lag = await ctx.store.snapshotsAfter(name, applied?.snapshotId ?? null);
  const g = leaders.ok ? leaders.groups.get(group) : undefined;
  const epochOnly = leaders.ok ? undefined : leaders.epochs.get(group);
  return {
    appliance: name, driver, group, leader: g?.holder ?? null, epoch: g?.epoch ?? epochOnly?.epoch ?? null,
    head: head === null ? null : { id: head.id, at: head.createdAt.toISOString(), held: head.held, holdReason: head.holdReason, origin: head.origin },
    lastApply: last === null ? null : { id: last.id, snapshot: last.snapshotId, status: last.status, finishedAt: last.finishedAt.toISOString(), epoch: last.epoch },
    lastAppliedSnapshot: applied?.snapshotId ?? null,
    lag: { snapshots: lag.count, oldestAgeSeconds: lag.oldest === null ? null : Math.max(0, Math.round((now.getTime() - lag.oldest.getTime()) / 1000)) },
    pinnedTo: pin?.snapshotId ?? null,
  };
}

async function streamStatus(ctx: AuditContext, url: string, stream: string): Promise<StatusReport['stream']> {
  const [info, positions, archivedSeq] = await Promise.all([readStreamInfo(url, stream), ctx.store.consumerPositions(), ctx.store.lastArchivedSeq()]);
  const lastSeq = info.ok ? info.lastSeq : null;
  return {
    stream, lastSeq, error: info.ok ? null : info.message, archivedSeq,
    consumers: positions.map((p) => ({ consumer: p.consumer, position: p.streamSeq, lag: lastSeq === null ? null : Math.max(0, lastSeq - p.streamSeq), updatedAt: p.updatedAt.toISOString() })),
  };
}
