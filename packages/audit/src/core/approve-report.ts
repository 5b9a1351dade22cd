/** One removal the safety rule held, as an approval report lists it. */
export interface HeldRemoval {
  readonly cluster: string;
  readonly kind: string;
  readonly object: string;
  readonly since: string;
  readonly reason: string;
}

/** `approve` as data: what was held, the approval published, what the planner released and the apply after it. */
export interface ApproveReport {
  readonly appliance: string;
  /** The clusters the appliance serves: an approval covers the holds in all of them. */
  readonly clusters: readonly string[];
  readonly actor: string;
  readonly reason: string;
  /** The holds in force when the approval was asked for (empty: nothing to approve, nothing published). */
  readonly held: readonly HeldRemoval[];
  /** The HoldApproved published into the event log (null when nothing was held). */
  readonly approval: { readonly seq: number } | null;
  /** What the planner released when it folded the approval; null when it had not within the wait. */
  readonly released:
    | readonly {
        readonly cluster: string;
        readonly kind: string;
        readonly object: string;
        readonly removed: boolean | null;
      }[]
    | null;
  /** The first apply that carried the approval out; null when none within the wait. */
  readonly apply: { readonly snapshotId: string; readonly status: string; readonly afterMs: number } | null;
}

/** Whether the approval went through: nothing was held, or the planner folded it within the wait. */
export function approvalFolded(r: ApproveReport): boolean {
  return r.approval === null || r.released !== null;
}

/** The report as the CLI prints it. */
export function formatApprove(r: ApproveReport): string {
  if (r.approval === null)
    return `nothing is held for ${r.appliance} (clusters ${r.clusters.join(', ')}); recorded by ${r.actor}\n`;
  let out = `approval ${r.approval.seq} by ${r.actor} recorded in the event log: ${r.held.length} held removal(s) in ${[...new Set(r.held.map((h) => h.cluster))].join(', ')}\n`;
  if (r.released === null) return out;
  for (const h of r.released)
    out += `  released ${h.cluster} ${h.kind} ${h.object}${h.removed === true ? ' (removed)' : ''}\n`;
  out +=
    r.apply === null
      ? `the leader has not applied it to ${r.appliance} yet; see portolan status\n`
      : `applied to ${r.appliance} in snapshot ${r.apply.snapshotId} (${r.apply.status}), ${r.apply.afterMs} ms after the approval was published\n`;
  return out;
}
