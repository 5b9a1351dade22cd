// The fleet overview: problems, clusters (watch freshness), appliances (driver, head, leader, lag, pin, holds),
// then apply latency and lag charts. Refreshes on live events and every 15 s (ages move even when nothing happens).
import { useEffect } from 'preact/hooks';
import type { ApplianceSummary, StatusReport } from '../api/types.ts';
import { useApp, useLiveRefresh } from '../app-context.ts';
import { ErrorBanner, Section, SkeletonBlock } from '../components/feedback.tsx';
import { useResource } from '../use-resource.ts';
import { AppliancesTable, ClustersTable } from './fleet-tables.tsx';
import { FleetCharts } from './fleet-charts.tsx';

const REFRESH_MS = 15_000;

/** The fleet page. */
export function FleetPage() {
  const { api } = useApp();
  const status = useResource('status', (signal) => api.get<StatusReport>('/status', {}, signal));
  const appliances = useResource('appliances', (signal) =>
    api.get<{ appliances: ApplianceSummary[] }>('/appliances', {}, signal),
  );
  const refresh = (): void => {
    status.reload();
    appliances.reload();
  };
  useLiveRefresh(() => true, refresh, 1500);
  useEffect(() => {
    const t = setInterval(refresh, REFRESH_MS);
    return () => clearInterval(t);
    // The reloads are stable: one interval for the page's life.
  }, []);
  const s = status.data;
  const list = appliances.data?.appliances ?? null;
  // Until both first answers are in, one placeholder stands for the page: nothing below it can be pushed down.
  const first = (s === null && status.error === null) || (list === null && appliances.error === null);
  return (
    <div class="page">
      <h1>Fleet</h1>
      <ErrorBanner error={status.error ?? appliances.error} onRetry={refresh} />
      {first ? (
        <SkeletonBlock lines={10} label="Loading the fleet" />
      ) : (
        <>
          <Problems status={s} />
          <Section title="Appliances" id="appliances-title">
            <AppliancesTable appliances={list} status={s} />
          </Section>
          <Section title="Clusters" id="clusters-title">
            <ClustersTable status={s} />
          </Section>
          <Section title="Apply latency and lag (last hour)" id="charts-title">
            <FleetCharts names={list?.map((a) => a.name) ?? null} />
          </Section>
          {s !== null && <StreamLine s={s} />}
        </>
      )}
    </div>
  );
}

function StreamLine({ s }: { s: StatusReport }) {
  return (
    <p class="muted small">
      Stream {s.stream.stream}: last sequence {s.stream.lastSeq ?? '-'}
      {s.planner ? `; planner at ${s.planner.position ?? '-'}, lag ${s.planner.lag ?? '-'}` : ''}
      {s.stream.error !== null ? `; ${s.stream.error}` : ''}.
    </p>
  );
}

/** What needs attention, or that nothing does; a fixed slot so the tables below do not move. */
function Problems({ status }: { status: StatusReport | null }) {
  if (status === null) return <div class="problems problems-pending" aria-hidden="true" />;
  if (status.problems.length === 0)
    return (
      <p class="problems problems-ok" data-testid="problems">
        All healthy.
      </p>
    );
  return (
    <div class="problems problems-bad" data-testid="problems">
      <h2 class="problems-title">Needs attention ({status.problems.length})</h2>
      <ul>
        {status.problems.map((p) => (
          <li key={p}>{p}</li>
        ))}
      </ul>
    </div>
  );
}
