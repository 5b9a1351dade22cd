import { formatTable } from './text-table.ts';

/** One cluster's watch freshness, from the newest archived heartbeat. */
export interface ClusterStatus {
  readonly cluster: string;
  readonly lastHeartbeat: string | null;
  readonly ageSeconds: number | null;
  readonly synced: boolean | null;
  readonly watcher: string | null;
  readonly lastEvent: string | null;
  readonly stale: boolean;
}

/** One appliance: who leads, what was last applied, how far applies lag plans. */
export interface ApplianceStatus {
  readonly appliance: string;
  readonly driver: string;
  readonly group: string;
  readonly leader: string | null;
  readonly epoch: number | null;
  readonly head: { readonly id: string; readonly at: string; readonly held: boolean; readonly holdReason: string | null; readonly origin: string } | null;
  readonly lastApply: { readonly id: string; readonly snapshot: string; readonly status: string; readonly finishedAt: string; readonly epoch: number } | null;
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
  readonly consumers: readonly { readonly consumer: string; readonly position: number; readonly lag: number | null; readonly updatedAt: string }[];
}

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
}

/** Problems worth a non-zero exit: stale watches, no leader, failed or lagging applies, unreachable bus. */
export function statusProblems(r: Omit<StatusReport, 'problems'>): string[] {
  const out: string[] = [];
  for (const c of r.clusters) if (c.stale) out.push(c.lastHeartbeat === null ? `cluster ${c.cluster}: no heartbeat archived` : `cluster ${c.cluster}: watch stale (last heartbeat ${c.ageSeconds}s ago)`);
  for (const a of r.appliances) {
    if (a.leader === null) out.push(`appliance ${a.appliance}: no leader holds group ${a.group}`);
    if (a.lastApply !== null && (a.lastApply.status === 'failed' || a.lastApply.status === 'partial')) out.push(`appliance ${a.appliance}: last apply ${a.lastApply.id} ${a.lastApply.status}`);
    if (a.head?.held === true) out.push(`appliance ${a.appliance}: head snapshot ${a.head.id} held (${a.head.holdReason ?? ''})`);
  }
  const byAppliance = new Map<string, HoldStatus[]>();
  for (const h of r.holds) for (const a of h.appliances) byAppliance.set(a, [...(byAppliance.get(a) ?? []), h]);
  for (const [appliance, holds] of byAppliance) {
    const clusters = [...new Set(holds.map((h) => h.cluster))].join(', ');
    out.push(`appliance ${appliance}: ${holds.length} removal(s) held by the safety rule in ${clusters} since ${holds[0]!.since} (approve: portolan approve ${appliance} --reason "...")`);
  }
  if (r.stream.error !== null) out.push(`bus: ${r.stream.error}`);
  return out;
}

const age = (s: number | null): string => (s === null ? '-' : s < 120 ? `${Math.round(s)}s` : s < 7200 ? `${Math.round(s / 60)}m` : `${Math.round(s / 3600)}h`);

/** The status report as three tables and a problem list. */
export function formatStatusTable(r: StatusReport): string {
  let out = 'CLUSTERS\n';
  out += formatTable(['CLUSTER', 'LAST HEARTBEAT', 'AGE', 'SYNCED', 'LAST EVENT', 'STATE'], r.clusters.map((c) => [c.cluster, c.lastHeartbeat ?? '-', age(c.ageSeconds), c.synced === null ? '-' : c.synced ? 'yes' : 'no', c.lastEvent ?? '-', c.stale ? 'STALE' : 'fresh']));
  out += '\nAPPLIANCES\n';
  out += formatTable(['APPLIANCE', 'DRIVER', 'LEADER', 'EPOCH', 'HEAD', 'LAST APPLY', 'APPLIED', 'LAG'], r.appliances.map((a) => [
    a.appliance, a.driver, a.leader ?? '(none)', a.epoch === null ? '-' : String(a.epoch),
    a.head === null ? '-' : `${a.head.id}${a.head.held ? ' held' : ''}${a.head.origin === 'rollback' ? ' rollback' : ''}${a.pinnedTo !== null ? ` pinned→${a.pinnedTo}` : ''}`,
    a.lastApply === null ? '-' : `${a.lastApply.id} ${a.lastApply.status} ${a.lastApply.finishedAt}`, a.lastAppliedSnapshot ?? '-',
    a.lag.snapshots === 0 ? 'in sync' : `${a.lag.snapshots} snapshot(s), oldest ${age(a.lag.oldestAgeSeconds)}`,
  ]));
  out += '\nSTREAM\n';
  out += r.stream.error !== null ? `${r.stream.stream}: ${r.stream.error}\n` : `${r.stream.stream}: last seq ${r.stream.lastSeq ?? '-'}, archived up to ${r.stream.archivedSeq}\n`;
  if (r.stream.consumers.length > 0) out += formatTable(['CONSUMER', 'POSITION', 'LAG', 'UPDATED'], r.stream.consumers.map((c) => [c.consumer, String(c.position), c.lag === null ? '-' : String(c.lag), c.updatedAt]));
  if (r.holds.length > 0) {
    out += '\nHELD REMOVALS\n';
    out += formatTable(['CLUSTER', 'KIND', 'OBJECT', 'SINCE', 'APPLIANCES', 'REASON'], r.holds.map((h) => [h.cluster, h.kind, h.object, h.since, h.appliances.join(','), h.reason]));
  }
  for (const n of r.notes) out += `note: ${n}\n`;
  out += r.problems.length === 0 ? '\nAll healthy.\n' : `\nPROBLEMS\n${r.problems.map((p) => `- ${p}`).join('\n')}\n`;
  return out;
}
