// One apply chart per appliance; each loads its own metrics and refreshes when that appliance applies.
import type { ApplyPoint } from '../api/types.ts';
import { useApp, useLiveRefresh } from '../app-context.ts';
import { ApplyChart } from '../components/apply-chart.tsx';
import { ErrorBanner } from '../components/feedback.tsx';
import { useResource } from '../use-resource.ts';

/** The grid of charts; two placeholder boxes while the appliance list loads. */
export function FleetCharts({ names }: { names: readonly string[] | null }) {
  return (
    <div class="chart-grid">
      {names === null
        ? [0, 1].map((i) => <ApplyChart key={i} appliance="…" points={null} />)
        : names.map((n) => <ApplianceChart key={n} name={n} />)}
    </div>
  );
}

/** One appliance's chart of the last hour. */
export function ApplianceChart({ name }: { name: string }) {
  const { api } = useApp();
  const metrics = useResource(`metrics:${name}`, (signal) =>
    api.get<{ applies: ApplyPoint[] }>(`/appliances/${encodeURIComponent(name)}/metrics`, { since: '-1h' }, signal),
  );
  useLiveRefresh((e) => e.type === 'apply' && e.data.appliance === name, metrics.reload, 1500);
  return (
    <div>
      <ApplyChart appliance={name} points={metrics.data?.applies ?? (metrics.error === null ? null : [])} />
      <ErrorBanner error={metrics.error} onRetry={metrics.reload} />
    </div>
  );
}
