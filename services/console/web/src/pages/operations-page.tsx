// One apply and every operation it sent, with results, errors, timings and (on request) payloads.
import type { OperationsReport } from '../api/reports.ts';
import { useApp } from '../app-context.ts';
import { Badge, ErrorBanner, SkeletonBlock, TableBox } from '../components/feedback.tsx';
import { formatDuration, formatTime } from '../format.ts';
import { href } from '../router.ts';
import { useResource } from '../use-resource.ts';

/** The operations page. */
export function OperationsPage({ name, applyId }: { name: string; applyId: string }) {
  const { api } = useApp();
  const r = useResource(`operations:${name}:${applyId}`, (signal) =>
    api.get<OperationsReport>(
      `/appliances/${encodeURIComponent(name)}/applies/${encodeURIComponent(applyId)}/operations`,
      {},
      signal,
    ),
  );
  const a = r.data?.apply;
  return (
    <div class="page">
      <p class="crumbs">
        <a href={href.fleet()}>Fleet</a> / <a href={href.appliance(name)}>{name}</a> / apply {applyId}
      </p>
      <h1>Apply {applyId}</h1>
      <ErrorBanner error={r.error} onRetry={r.reload} />
      {r.data === null || a === undefined ? (
        r.error === null && <SkeletonBlock lines={6} label="Loading the operations" />
      ) : (
        <>
          <p>
            <Badge>{a.status}</Badge> snapshot <a href={href.snapshot(name, a.snapshotId)}>#{a.snapshotId}</a>, trigger{' '}
            {a.trigger}, epoch {a.epoch}, leader {a.leaderId}; {formatTime(a.startedAt)} → {formatTime(a.finishedAt)} (
            {formatDuration(Date.parse(a.finishedAt) - Date.parse(a.startedAt))})
            {a.reason !== null && <> — {a.reason}</>}
          </p>
          <OperationsTable r={r.data} />
        </>
      )}
    </div>
  );
}

function OperationsTable({ r }: { r: OperationsReport }) {
  if (r.operations.length === 0)
    return (
      <p data-testid="operations-empty">
        No operations{r.apply.status === 'noop' ? ': the appliance already held that configuration' : ' were recorded'}.
      </p>
    );
  return (
    <TableBox label="Operations" testid="operations-table">
      <thead>
        <tr>
          <th scope="col">#</th>
          <th scope="col">Result</th>
          <th scope="col">Action</th>
          <th scope="col">Type</th>
          <th scope="col">Object</th>
          <th scope="col">Summary or error</th>
          <th scope="col">Time</th>
        </tr>
      </thead>
      <tbody>
        {r.operations.map((o, i) => (
          <tr key={i} data-result={o.result}>
            <td>{i + 1}</td>
            <td>
              <Badge>{o.result}</Badge>
            </td>
            <td>{o.action}</td>
            <td>{o.objectType}</td>
            <td>
              <code>{o.objectName}</code>
            </td>
            <td>
              {o.error ?? o.summary}
              {o.payload !== null && (
                <details>
                  <summary>Payload</summary>
                  <pre>{JSON.stringify(o.payload, null, 2)}</pre>
                </details>
              )}
            </td>
            <td>{formatDuration(o.durationMs)}</td>
          </tr>
        ))}
      </tbody>
    </TableBox>
  );
}
