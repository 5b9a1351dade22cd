import type { HistoryEntry, HistoryReport } from './history-report.ts';

/** The kinds of history entry a filter can keep (`hold` covers a hold and its release). */
export const HISTORY_KINDS = ['snapshot', 'apply', 'drift', 'hold', 'approval', 'rollback', 'resume'] as const;

/** One kind of history entry. */
export type HistoryKind = (typeof HISTORY_KINDS)[number];

/** What to keep of a history; an absent field keeps everything. */
export interface HistoryFilter {
  /** Case-insensitive text an object the snapshot's cause names must contain: `Ingress shop/web`, `c1/Service/`. */
  readonly object?: string;
  readonly kinds?: readonly HistoryKind[];
}

/** Whether a string names a history kind. */
export function isHistoryKind(value: string): value is HistoryKind {
  return (HISTORY_KINDS as readonly string[]).includes(value);
}

/** The kind an entry counts as. */
export function kindOf(e: HistoryEntry): HistoryKind {
  return e.type === 'release' ? 'hold' : e.type;
}

/**
 * Keeps the entries a filter asks for. With `object`, only snapshots whose cause names a matching object remain,
 * with the applies that pushed them; everything else (drift, holds, operator actions) is about no one object and
 * goes. With `kinds`, only entries of those kinds remain. Both: both.
 */
export function filterHistory(report: HistoryReport, filter: HistoryFilter): HistoryReport {
  let entries = report.entries;
  const text = filter.object?.trim().toLowerCase() ?? '';
  if (text !== '') {
    const kept = new Set(
      entries
        .filter((e) => e.type === 'snapshot' && e.cause.objects.some((o) => objectMatches(o.object, text)))
        .map((e) => e.id),
    );
    entries = entries.filter(
      (e) => (e.type === 'snapshot' && kept.has(e.id)) || (e.type === 'apply' && kept.has(e.snapshot)),
    );
  }
  if (filter.kinds !== undefined && filter.kinds.length > 0) {
    const kinds = new Set(filter.kinds);
    entries = entries.filter((e) => kinds.has(kindOf(e)));
  }
  return { ...report, entries };
}

/**
 * Whether a cause's object (`cluster/Kind/namespace/name`, or `cluster/Kind/name` when cluster-scoped) contains the
 * lower-cased text, either as stored or as people write it: `Kind namespace/name`, `cluster Kind namespace/name`.
 */
export function objectMatches(object: string, lowerText: string): boolean {
  const [cluster, kind, ...rest] = object.split('/');
  const name = rest.join('/');
  const spellings = [object, `${kind} ${name}`, `${cluster} ${kind} ${name}`];
  return spellings.some((s) => s.toLowerCase().includes(lowerText));
}
