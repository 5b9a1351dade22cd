// Apply duration and lag over time for one appliance, drawn by uPlot in a box of fixed height (no layout shift
// when the data arrives or grows). A one-line summary under it says the same in words.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import type { ApplyPoint } from '../api/types.ts';
import { formatDuration } from '../format.ts';

/** The chart's height in pixels; the CSS reserves the same. */
export const CHART_HEIGHT = 180;

/** uPlot's columns: times (seconds), durations, lags (null: no causing change known). */
export function chartData(points: readonly ApplyPoint[]): uPlot.AlignedData {
  const sorted = [...points].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  return [sorted.map((p) => Date.parse(p.at) / 1000), sorted.map((p) => p.durationMs), sorted.map((p) => p.lagMs)];
}

/** `12 applies; duration median 340 ms, max 1.2 s; lag max 2.1 s`. */
export function chartSummary(points: readonly ApplyPoint[]): string {
  if (points.length === 0) return 'No applies in this window.';
  const durations = points.map((p) => p.durationMs).sort((a, b) => a - b);
  const lags = points.flatMap((p) => (p.lagMs === null ? [] : [p.lagMs]));
  const median = durations[Math.floor(durations.length / 2)] ?? 0;
  const lag = lags.length === 0 ? 'lag unknown' : `lag max ${formatDuration(Math.max(...lags))}`;
  return `${points.length} appl${points.length === 1 ? 'y' : 'ies'}; duration median ${formatDuration(median)}, max ${formatDuration(durations.at(-1) ?? 0)}; ${lag}`;
}

function cssVar(name: string, fallback: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

function chartOptions(width: number): uPlot.Options {
  const text = cssVar('--text-muted', '#555');
  const grid = cssVar('--border', '#ddd');
  const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
  const ms = (_: uPlot, vals: number[]) => vals.map((v) => formatDuration(v));
  return {
    width,
    height: CHART_HEIGHT,
    legend: { show: true, live: false },
    cursor: { drag: { x: false, y: false } },
    scales: { x: { time: true } },
    axes: [axis, { ...axis, values: ms, size: 64 }],
    series: [
      {},
      {
        label: 'apply duration',
        stroke: cssVar('--chart-1', '#2563eb'),
        width: 2,
        points: { show: true, size: 5 },
        value: (_u, v) => formatDuration(v),
      },
      {
        label: 'lag from change',
        stroke: cssVar('--chart-2', '#c2410c'),
        width: 2,
        dash: [6, 4],
        points: { show: true, size: 5 },
        spanGaps: true,
        value: (_u, v) => formatDuration(v),
      },
    ],
  };
}

/** The chart of one appliance's applies; `points` null while loading. */
export function ApplyChart({ appliance, points }: { appliance: string; points: readonly ApplyPoint[] | null }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  useEffect(() => {
    const el = box.current;
    if (el === null || points === null || points.length === 0) return;
    // New data redraws the same chart: nothing is torn down, so the box never blinks.
    if (plot.current !== null) plot.current.setData(chartData(points));
    else plot.current = new uPlot(chartOptions(el.clientWidth), chartData(points), el);
  }, [points]);
  useEffect(() => {
    const el = box.current;
    if (el === null) return;
    const resize = new ResizeObserver(() => plot.current?.setSize({ width: el.clientWidth, height: CHART_HEIGHT }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, []);
  const summary = points === null ? 'Loading applies…' : chartSummary(points);
  return (
    <figure class="chart" data-testid="apply-chart" data-appliance={appliance}>
      <figcaption>{appliance}</figcaption>
      <div class="chart-box" role="img" aria-label={`${appliance}: ${summary}`}>
        <div class="chart-plot" ref={box} />
        {points === null && <span class="skeleton chart-skeleton" />}
        {points !== null && points.length === 0 && <p class="chart-empty">No applies in the last hour.</p>}
      </div>
      <p class="chart-summary">{summary}</p>
    </figure>
  );
}
