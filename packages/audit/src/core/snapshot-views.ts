import type { Operation } from '@portolan/appliance-driver';
import type { DesiredState } from '@portolan/desired-state';
import type { ObjectDifference } from './desired-diff.ts';
import { listDesiredObjects } from './desired-objects.ts';
import type { SnapshotRecord } from './history-report.ts';
import { formatTable, listCell, truncateCell } from './text-table.ts';
import type { VendorObject } from './vendor-objects.ts';

/** A snapshot's identity as reports show it. */
export interface SnapshotHeader {
  readonly id: string;
  readonly appliance: string;
  readonly createdAt: string;
  readonly contentHash: string;
  readonly parent: string | null;
  readonly origin: string;
  readonly reason: string | null;
  readonly held: boolean;
  readonly holdReason: string | null;
  readonly lastEventSeq: number;
  readonly plannerVersion: string;
  readonly traceId: string | null;
}

/** The header of a snapshot record. */
export function snapshotHeader(s: SnapshotRecord): SnapshotHeader {
  return {
    id: s.id,
    appliance: s.appliance,
    createdAt: s.createdAt.toISOString(),
    contentHash: s.contentHash,
    parent: s.parentId,
    origin: s.origin,
    reason: s.reason,
    held: s.held,
    holdReason: s.holdReason,
    lastEventSeq: s.lastEventSeq,
    plannerVersion: s.plannerVersion,
    traceId: s.traceId,
  };
}

/** `portolan show`: a snapshot, its desired state, and (with --vendor) the vendor objects it renders to. */
export interface ShowReport {
  readonly snapshot: SnapshotHeader;
  readonly desired: DesiredState;
  readonly vendor: readonly { readonly id: string; readonly detail: string }[] | null;
}

/** An operation as reports show it (payloads are left to `-o json` of the apply log). */
export interface OperationView {
  readonly action: Operation['action'];
  readonly objectType: string;
  readonly objectName: string;
  readonly summary: string;
}

/** `portolan diff`: object-level differences and the vendor operations a push from a to b would make. */
export interface DiffReport {
  readonly from: SnapshotHeader;
  readonly to: SnapshotHeader;
  readonly objects: readonly ObjectDifference[];
  readonly operations: readonly OperationView[] | null;
  /** Why operations are missing (appliance no longer configured, different drivers). */
  readonly note: string | null;
}

/** The view of an operation. */
export function operationView(o: Operation): OperationView {
  return { action: o.action, objectType: o.objectType, objectName: o.objectName, summary: o.summary };
}

/** The vendor objects of a render, for `show --vendor`. */
export function vendorView(objects: readonly VendorObject[]): { id: string; detail: string }[] {
  return objects.map((o) => ({ id: o.id, detail: o.detail }));
}

/** One-line description of a snapshot, used above tables. */
export function headerLine(h: SnapshotHeader): string {
  const origin = h.origin === 'rollback' ? `rollback${h.reason ? ` (${h.reason})` : ''}` : 'plan';
  return `snapshot ${h.id} of ${h.appliance} at ${h.createdAt}: ${origin}${h.held ? `, HELD: ${h.holdReason ?? ''}` : ''}, hash ${h.contentHash.slice(0, 12)}, parent ${h.parent ?? '-'}, events ≤ ${h.lastEventSeq}${h.traceId ? `, trace ${h.traceId}` : ''}`;
}

/** The show report as text: the header line, the objects table, and the vendor objects when asked for. */
export function formatShowTable(r: ShowReport): string {
  const objects = listDesiredObjects(r.desired);
  let out = `${headerLine(r.snapshot)}\n\n`;
  out +=
    objects.length === 0
      ? '(empty desired state)\n'
      : formatTable(
          ['KIND', 'OBJECT', 'DETAIL', 'FROM'],
          objects.map((o) => [
            o.kind,
            o.key.slice(o.key.indexOf('/') + 1),
            truncateCell(o.summary, 90),
            listCell(o.sources, 2),
          ]),
        );
  if (r.vendor !== null)
    out += `\nvendor objects (${r.desired.driver}):\n${
      r.vendor.length === 0
        ? '(none)\n'
        : formatTable(
            ['OBJECT', 'DETAIL'],
            r.vendor.map((v) => [v.id, truncateCell(v.detail, 100)]),
          )
    }`;
  return out;
}

/** The diff report as text: headers, object changes, then vendor operations. */
export function formatDiffTable(r: DiffReport): string {
  let out = `from ${headerLine(r.from)}\nto   ${headerLine(r.to)}\n\n`;
  out +=
    r.objects.length === 0
      ? 'No object-level differences.\n'
      : formatTable(
          ['CHANGE', 'KIND', 'OBJECT', 'BEFORE', 'AFTER'],
          r.objects.map((d) => [
            d.change,
            d.kind,
            d.key.slice(d.key.indexOf('/') + 1),
            truncateCell(d.before || '-', 60),
            truncateCell(d.after || '-', 60),
          ]),
        );
  out += '\n';
  if (r.operations === null) out += `Vendor operations: not computed (${r.note ?? 'unknown reason'}).\n`;
  else if (r.operations.length === 0)
    out += 'Vendor operations: none (the appliance configuration would not change).\n';
  else
    out += `Vendor operations a push would make (${r.operations.length}):\n${formatTable(
      ['#', 'ACTION', 'TYPE', 'OBJECT', 'SUMMARY'],
      r.operations.map((o, i) => [
        String(i + 1),
        o.action,
        o.objectType,
        truncateCell(o.objectName, 60),
        truncateCell(o.summary, 80),
      ]),
    )}`;
  return out;
}
