// An appliance's history as the timeline shows it: newest first, reloaded whole when the filters change, and
// extended by live events without moving what is on screen: new entries wait in `pending` until the reader asks.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { isAbort } from '../api/api-client.ts';
import type { HistoryEntry, HistoryReport } from '../api/types.ts';
import { useApp, useLiveRefresh } from '../app-context.ts';

/** The kinds the history API filters on. */
export const entryKinds = ['snapshot', 'apply', 'drift', 'hold', 'approval', 'rollback', 'resume'] as const;

/** One of the filterable kinds. */
export type EntryKind = (typeof entryKinds)[number];

/** The timeline's filters; empty strings are "no bound". */
export interface TimelineFilters {
  readonly kinds: readonly EntryKind[];
  readonly object: string;
  readonly since: string;
  readonly until: string;
}

/** Every kind, no object, no window. */
export const noFilters: TimelineFilters = { kinds: entryKinds, object: '', since: '', until: '' };

/** An entry's identity across reloads (a hold and its release share the hold's id). */
export function entryKey(e: HistoryEntry): string {
  return `${e.type}:${e.id}`;
}

/** What the timeline holds. */
export interface Timeline {
  /** Newest first; null while the first answer is awaited. */
  readonly entries: readonly HistoryEntry[] | null;
  /** Arrived live, not shown yet (newest first). */
  readonly pending: readonly HistoryEntry[];
  readonly error: unknown;
  readonly showPending: () => void;
  readonly reload: () => void;
}

/** The history request of a filter set (all kinds: no kind parameter, so release entries come too). */
function historyQuery(f: TimelineFilters): Record<string, string | readonly string[]> {
  return {
    since: f.since,
    until: f.until,
    object: f.object,
    kind: f.kinds.length === entryKinds.length ? [] : f.kinds,
  };
}

/** The timeline of `appliance` under `filters`; `clusters` tells which hold events concern it. */
export function useTimeline(appliance: string, filters: TimelineFilters, clusters: readonly string[]): Timeline {
  const { api } = useApp();
  const [entries, setEntries] = useState<readonly HistoryEntry[] | null>(null);
  const [pending, setPending] = useState<readonly HistoryEntry[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  const known = useRef(new Set<string>());
  const filterKey = JSON.stringify(filters);
  const fetchHistory = useCallback(
    async (signal?: AbortSignal): Promise<HistoryEntry[]> => {
      const path = `/appliances/${encodeURIComponent(appliance)}/history`;
      const r = await api.get<HistoryReport>(path, historyQuery(JSON.parse(filterKey) as TimelineFilters), signal);
      return [...r.entries].reverse();
    },
    [api, appliance, filterKey],
  );
  useEffect(() => {
    const abort = new AbortController();
    setEntries(null);
    setPending([]);
    setError(null);
    fetchHistory(abort.signal).then(
      (list) => {
        known.current = new Set(list.map(entryKey));
        setEntries(list);
      },
      (e: unknown) => {
        if (!isAbort(e)) setError(e);
      },
    );
    return () => abort.abort();
  }, [fetchHistory, tick]);
  const onLive = useCallback(() => {
    if (entries === null) return;
    fetchHistory().then(
      (list) => {
        const fresh = list.filter((e) => !known.current.has(entryKey(e)));
        for (const e of fresh) known.current.add(entryKey(e));
        if (fresh.length > 0) setPending((p) => [...fresh, ...p]);
        setError(null);
      },
      (e: unknown) => setError(e),
    );
  }, [entries, fetchHistory]);
  useLiveRefresh(
    (e) => (e.type === 'hold' ? clusters.includes(e.data.cluster) : e.data.appliance === appliance),
    onLive,
  );
  const showPending = useCallback(() => {
    setEntries((list) => [...pending, ...(list ?? [])]);
    setPending([]);
  }, [pending]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { entries, pending, error, showPending, reload };
}
