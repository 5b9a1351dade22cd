// The appliance's timeline: filters, the "new entries" bar (live entries never push the list down on their own),
// and the entries newest first, a page at a time.
import { useState } from 'preact/hooks';
import { ErrorBanner, SkeletonBlock } from '../components/feedback.tsx';
import { TimelineEntry } from './timeline-entry.tsx';
import { TimelineFilterForm } from './timeline-filters.tsx';
import { entryKey, noFilters, useTimeline } from './use-timeline.ts';

const PAGE = 100;

/** The timeline of one appliance. */
export function Timeline(p: { appliance: string; clusters: readonly string[]; operator: boolean }) {
  const [filters, setFilters] = useState(noFilters);
  const [limit, setLimit] = useState(PAGE);
  const t = useTimeline(p.appliance, filters, p.clusters);
  const n = t.pending.length;
  return (
    <div class="timeline">
      <TimelineFilterForm
        value={filters}
        onChange={(f) => {
          setFilters(f);
          setLimit(PAGE);
        }}
      />
      <ErrorBanner error={t.error} onRetry={t.reload} />
      {/* The bar's slot is always there (the count sits in it meanwhile), so its appearing moves nothing. */}
      <div class="new-entries-slot" aria-live="polite">
        {n > 0 ? (
          <button type="button" class="new-entries" onClick={t.showPending} data-testid="new-entries">
            {n} new entr{n === 1 ? 'y' : 'ies'}: show
          </button>
        ) : (
          t.entries !== null &&
          t.entries.length > 0 && (
            <p class="muted small" data-testid="timeline-count">
              {t.entries.length} entr{t.entries.length === 1 ? 'y' : 'ies'}, newest first.
            </p>
          )
        )}
      </div>
      {t.entries === null ? (
        t.error === null && <SkeletonBlock lines={6} label="Loading the history" />
      ) : t.entries.length === 0 ? (
        <p class="empty" data-testid="timeline-empty">
          No entries match these filters.
        </p>
      ) : (
        <>
          <ol class="entries" data-testid="timeline">
            {t.entries.slice(0, limit).map((e) => (
              <TimelineEntry key={entryKey(e)} e={e} appliance={p.appliance} operator={p.operator} />
            ))}
          </ol>
          {t.entries.length > limit && (
            <button type="button" onClick={() => setLimit((l) => l + PAGE)} data-testid="show-older">
              Show {Math.min(PAGE, t.entries.length - limit)} older
            </button>
          )}
        </>
      )}
    </div>
  );
}
