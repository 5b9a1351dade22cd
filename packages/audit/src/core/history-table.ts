// The history report as the CLI's table: one row per entry, the columns every kind shares.
import { listCell, formatTable, truncateCell } from './text-table.ts';
import { isOperatorEntry, type HistoryEntry, type HistoryReport, type OperatorEntry } from './history-report.ts';

/** The history as a table: TIME, WHAT, ID, SNAPSHOT, EPOCH, RESULT, CAUSE / DETAIL, TRACE. */
export function formatHistoryTable(report: HistoryReport): string {
  if (report.entries.length === 0)
    return `No snapshots or applies for ${report.appliance}${report.since || report.until ? ' in that window' : ''}.\n`;
  return formatTable(
    ['TIME', 'WHAT', 'ID', 'SNAPSHOT', 'EPOCH', 'RESULT', 'CAUSE / DETAIL', 'TRACE'],
    report.entries.map(historyRow),
  );
}

/** One entry as a table row. */
function historyRow(e: HistoryEntry): string[] {
  if (e.type === 'snapshot') return snapshotRow(e);
  if (e.type === 'apply') {
    const result = `${e.status}${e.failed > 0 ? ` (${e.failed} failed)` : ''}`;
    const why = e.reason ?? (e.rollbackReason === null ? null : `rollback: ${e.rollbackReason}`);
    const detail = `${e.trigger}, ${e.operations} op(s) by ${e.leader}${why ? `: ${why}` : ''}`;
    return [e.at, 'apply', e.id, e.snapshot, String(e.epoch), result, truncateCell(detail, 110), e.traceId ?? '-'];
  }
  if (e.type === 'hold')
    return [
      e.at,
      'hold',
      e.id,
      '-',
      '-',
      'removal held',
      truncateCell(`seq ${e.seq}: ${e.object}: ${e.reason}`, 110),
      '-',
    ];
  if (isOperatorEntry(e)) return operatorRow(e);
  if (e.type === 'release') {
    const result = `${e.removed === true ? 'removed' : 'kept'} (${e.by ?? '-'})`;
    return [e.at, 'release', e.id, '-', '-', result, truncateCell(`seq ${e.seq}: ${e.object}: ${e.reason}`, 110), '-'];
  }
  return [e.at, 'drift', e.id, e.snapshot ?? '-', '-', e.action, truncateCell(listCell(e.objects, 3), 110), '-'];
}

/** An operator action: WHAT is the action, RESULT who made it, the detail what it did and why. */
function operatorRow(e: OperatorEntry): string[] {
  const did =
    e.type === 'rollback'
      ? `operator rollback to ${e.snapshot ?? '-'}${e.resultSnapshot === null ? '' : ` as snapshot ${e.resultSnapshot}`}`
      : e.type === 'resume'
        ? e.snapshot === null
          ? 'resume (was not pinned)'
          : `resume: pin to ${e.snapshot} removed${e.resultSnapshot === null ? '' : `, released snapshot ${e.resultSnapshot}`}`
        : e.approvalSeq === null
          ? 'approval (nothing was held)'
          : `approval seq ${e.approvalSeq}`;
  const snapshot = e.resultSnapshot ?? e.snapshot ?? '-';
  return [
    e.at,
    e.type,
    e.id,
    snapshot,
    '-',
    truncateCell(`by ${e.actor}`, 40),
    truncateCell(`${did}: ${e.reason}`, 110),
    '-',
  ];
}

function snapshotRow(e: Extract<HistoryEntry, { type: 'snapshot' }>): string[] {
  const what = e.origin === 'rollback' ? 'rollback' : 'snapshot';
  const result = e.held
    ? `held: ${e.holdReason ?? ''}`
    : e.origin === 'rollback'
      ? `reason: ${e.reason ?? '-'}`
      : 'planned';
  const objs = e.cause.objects.map((o) => `${o.event.toLowerCase()} ${o.object}@${o.resourceVersion}`);
  const cause =
    e.origin === 'rollback'
      ? `operator rollback${e.reason ? `: ${e.reason}` : ''}`
      : e.cause.events === 0
        ? '(no events)'
        : `seq ${e.cause.fromSeq + 1}-${e.cause.toSeq}: ${listCell(objs, 2)}`;
  return [e.at, what, e.id, e.id, '-', truncateCell(result, 40), truncateCell(cause, 110), e.traceId ?? '-'];
}
