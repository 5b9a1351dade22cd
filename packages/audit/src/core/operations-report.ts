import type { ApplyRecord } from './history-report.ts';
import { formatTable, truncateCell } from './text-table.ts';

/** One operation of an apply as sent (payload included), with what came of it. */
export interface OperationEntry {
  readonly action: string;
  readonly objectType: string;
  readonly objectName: string;
  readonly summary: string;
  /** `ok`, `failed`, or `not sent` (a fenced apply, or an apply that stopped before it). */
  readonly result: 'ok' | 'failed' | 'not sent';
  /** The appliance's error for a failed operation (code and message). */
  readonly error: string | null;
  readonly durationMs: number | null;
  /** The vendor payload as sent (secrets are named, never included). */
  readonly payload: unknown;
}

/** `portolan operations`: one apply and every operation it sent. */
export interface OperationsReport {
  readonly appliance: string;
  readonly apply: ApplyRecord;
  readonly operations: readonly OperationEntry[];
}

interface RecordedResult {
  readonly objectType?: unknown;
  readonly objectName?: unknown;
  readonly action?: unknown;
  readonly durationMs?: unknown;
  readonly result?: { readonly ok?: unknown; readonly code?: unknown; readonly message?: unknown };
}

/**
 * Pairs each recorded operation with its result. Results are recorded in the order operations ran, which is not
 * always the order they were listed: each operation takes the first unused result for the same object and action.
 */
export function buildOperationsReport(
  appliance: string,
  apply: ApplyRecord,
  operations: readonly unknown[],
  results: readonly unknown[],
): OperationsReport {
  const unused = results.map((r) => r as RecordedResult);
  const entries = operations.map((o): OperationEntry => {
    const op = (o ?? {}) as Record<string, unknown>;
    const [action, objectType, objectName] = [
      String(op['action'] ?? ''),
      String(op['objectType'] ?? ''),
      String(op['objectName'] ?? ''),
    ];
    const at = unused.findIndex(
      (r) => r.objectType === objectType && r.objectName === objectName && r.action === action,
    );
    const r = at < 0 ? undefined : unused.splice(at, 1)[0];
    const ok = r?.result?.ok === true;
    return {
      action,
      objectType,
      objectName,
      summary: String(op['summary'] ?? ''),
      result: r === undefined ? 'not sent' : ok ? 'ok' : 'failed',
      error: r === undefined || ok ? null : `${String(r.result?.code ?? '')}: ${String(r.result?.message ?? '')}`,
      durationMs: typeof r?.durationMs === 'number' ? r.durationMs : null,
      payload: op['payload'] ?? null,
    };
  });
  return { appliance, apply, operations: entries };
}

/** The report as text: the apply's header, then one row per operation (payloads only in `-o json|yaml`). */
export function formatOperationsTable(r: OperationsReport): string {
  const a = r.apply;
  let out = `Apply ${a.id} of ${r.appliance}: snapshot ${a.snapshotId}, epoch ${a.epoch}, leader ${a.leaderId}, ${a.trigger}, ${a.status}`;
  out += `${a.reason ? ` (${a.reason})` : ''}; ${a.startedAt.toISOString()} → ${a.finishedAt.toISOString()}\n`;
  // A noop found the appliance in that state; a hold or a fenced record sent nothing (the header says why).
  if (r.operations.length === 0)
    return `${out}No operations${a.status === 'noop' ? ': the appliance already held that configuration' : ' were recorded'}.\n`;
  const rows = r.operations.map((o, i) => [
    String(i + 1),
    o.result,
    o.action,
    o.objectType,
    truncateCell(o.objectName, 60),
    truncateCell(o.error ?? o.summary, 90),
    o.durationMs === null ? '-' : `${Math.round(o.durationMs)} ms`,
  ]);
  return `${out}${formatTable(['#', 'RESULT', 'ACTION', 'TYPE', 'OBJECT', 'SUMMARY / ERROR', 'TIME'], rows)}Payloads: -o json or -o yaml.\n`;
}
