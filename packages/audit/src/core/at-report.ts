import type { DriftRecord, ApplyRecord } from './history-report.ts';
import type { OperationView, SnapshotHeader } from './snapshot-views.ts';
import { formatTable, listCell, truncateCell } from './text-table.ts';

/** `portolan at`: the configuration an appliance held at a time, from the apply log's read-back. */
export interface AtReport {
  readonly appliance: string;
  readonly time: string;
  /** The newest apply that finished at or before the time and may have reached the appliance. */
  readonly apply: {
    readonly id: string;
    readonly status: string;
    readonly finishedAt: string;
    readonly epoch: number;
    readonly leader: string;
    readonly trigger: string;
    readonly reason: string | null;
    readonly observedAfterHash: string;
  };
  /** The snapshot that apply converged to. */
  readonly snapshot: SnapshotHeader;
  /** Vendor objects the apply log recorded after the apply (its read-back, or its render when every operation succeeded). */
  readonly objects: readonly { readonly id: string; readonly detail: string }[];
  /** Operations that would have turned the read-back into the plan: empty when the appliance matched its plan. */
  readonly differencesFromPlan: readonly OperationView[];
  /** Drift observed between that apply and the time: the appliance may have differed from the read-back. */
  readonly driftAfter: readonly {
    readonly id: string;
    readonly at: string;
    readonly objects: readonly string[];
    readonly action: string;
  }[];
  /** The read-back itself (vendor JSON, no secret material). */
  readonly observed: unknown;
}

/** Builds the report's apply part. */
export function applyView(a: ApplyRecord): AtReport['apply'] {
  return {
    id: a.id,
    status: a.status,
    finishedAt: a.finishedAt.toISOString(),
    epoch: a.epoch,
    leader: a.leaderId,
    trigger: a.trigger,
    reason: a.reason,
    observedAfterHash: a.observedAfterHash ?? '',
  };
}

/** Builds the report's drift part. */
export function driftView(d: readonly DriftRecord[]): AtReport['driftAfter'] {
  return d.map((x) => ({ id: x.id, at: x.observedAt.toISOString(), objects: x.objects, action: x.action }));
}

/** The at report as text. */
export function formatAtTable(r: AtReport): string {
  let out = `${r.appliance} at ${r.time}: as recorded after apply ${r.apply.id} (${r.apply.status}, finished ${r.apply.finishedAt}, epoch ${r.apply.epoch}, ${r.apply.trigger}) of snapshot ${r.snapshot.id}${r.snapshot.origin === 'rollback' ? ' (rollback)' : ''}\n\n`;
  out +=
    r.objects.length === 0
      ? '(no objects owned by Portolan)\n'
      : formatTable(
          ['OBJECT', 'DETAIL'],
          r.objects.map((o) => [o.id, truncateCell(o.detail, 110)]),
        );
  if (r.differencesFromPlan.length > 0)
    out += `\nThe recorded state differed from snapshot ${r.snapshot.id} by ${r.differencesFromPlan.length} operation(s): ${listCell(
      r.differencesFromPlan.map((o) => o.summary),
      3,
    )}\n`;
  else out += `\nThe recorded state matched snapshot ${r.snapshot.id}.\n`;
  for (const d of r.driftAfter)
    out += `Warning: drift observed at ${d.at} before ${r.time} (${d.action}): ${listCell([...d.objects], 4)}\n`;
  return out;
}
