// The fleet page's tables: appliances joined with their status (leader, lag, holds), and clusters.
import type { ApplianceSummary, StatusReport } from '../api/types.ts';
import { Badge, SkeletonRows, TableBox } from '../components/feedback.tsx';
import { formatAge, formatTime } from '../format.ts';
import { href } from '../router.ts';

/** Appliances with head, leader, lag, pin and held removals; skeleton rows until both answers are in. */
export function AppliancesTable({
  appliances,
  status,
}: {
  appliances: readonly ApplianceSummary[] | null;
  status: StatusReport | null;
}) {
  return (
    <TableBox label="Appliances" testid="appliances-table">
      <thead>
        <tr>
          <th scope="col">Appliance</th>
          <th scope="col">Driver</th>
          <th scope="col">Head</th>
          <th scope="col">Leader</th>
          <th scope="col">Lag</th>
          <th scope="col">Last apply</th>
          <th scope="col">Pin</th>
          <th scope="col">Held removals</th>
        </tr>
      </thead>
      <tbody>
        {appliances === null ? (
          <SkeletonRows columns={8} />
        ) : (
          appliances.map((a) => <ApplianceRow key={a.name} a={a} status={status} />)
        )}
        {appliances?.length === 0 && (
          <tr>
            <td colSpan={8}>The fleet config names no appliances.</td>
          </tr>
        )}
      </tbody>
    </TableBox>
  );
}

function ApplianceRow({ a, status }: { a: ApplianceSummary; status: StatusReport | null }) {
  const s = status?.appliances.find((x) => x.appliance === a.name);
  const holds = status?.holds.filter((h) => h.appliances.includes(a.name)).length;
  return (
    <tr data-testid="appliance-row" data-appliance={a.name}>
      <th scope="row">
        <a href={href.appliance(a.name)} data-testid="appliance-link">
          {a.name}
        </a>
      </th>
      <td>{a.driver}</td>
      <td>
        <HeadCell a={a} />
      </td>
      <td>
        {s === undefined ? (
          '…'
        ) : s.leader === null ? (
          <Badge tone="bad">none</Badge>
        ) : (
          `${s.leader} (epoch ${s.epoch ?? '-'})`
        )}
      </td>
      <td>
        {s === undefined
          ? '…'
          : s.lag.snapshots === 0
            ? 'in sync'
            : `${s.lag.snapshots} behind, oldest ${formatAge(s.lag.oldestAgeSeconds)}`}
      </td>
      <td>
        <LastApplyCell a={a} />
      </td>
      <td>
        <PinCell a={a} />
      </td>
      <td>{holds === undefined ? '…' : holds === 0 ? '-' : <Badge tone="warn">{String(holds)}</Badge>}</td>
    </tr>
  );
}

function HeadCell({ a }: { a: ApplianceSummary }) {
  if (a.head === null) return <>-</>;
  return (
    <span class="cell-stack">
      <a href={href.snapshot(a.name, a.head.id)}>#{a.head.id}</a>
      {a.head.held && <Badge>held</Badge>}
      {a.head.origin === 'rollback' && <Badge>rollback</Badge>}
    </span>
  );
}

function LastApplyCell({ a }: { a: ApplianceSummary }) {
  if (a.lastApply === null) return <>-</>;
  return (
    <span class="cell-stack">
      <a href={href.operations(a.name, a.lastApply.id)}>apply {a.lastApply.id}</a>
      <Badge>{a.lastApply.status}</Badge>
      <span class="muted">{formatTime(a.lastApply.finishedAt)}</span>
    </span>
  );
}

function PinCell({ a }: { a: ApplianceSummary }) {
  if (a.pin === null) return <>-</>;
  return (
    <span class="cell-stack" title={a.pin.reason ?? ''}>
      <Badge>pinned</Badge> to #{a.pin.snapshotId}
      {a.pin.actor !== null && <span class="muted">by {a.pin.actor}</span>}
    </span>
  );
}

/** Clusters with the watcher's freshness. */
export function ClustersTable({ status }: { status: StatusReport | null }) {
  return (
    <TableBox label="Clusters" testid="clusters-table">
      <thead>
        <tr>
          <th scope="col">Cluster</th>
          <th scope="col">Watch</th>
          <th scope="col">Last heartbeat</th>
          <th scope="col">Age</th>
          <th scope="col">Synced</th>
          <th scope="col">Watcher</th>
        </tr>
      </thead>
      <tbody>
        {status === null ? (
          <SkeletonRows columns={6} rows={2} />
        ) : (
          status.clusters.map((c) => (
            <tr key={c.cluster} data-testid="cluster-row" data-cluster={c.cluster}>
              <th scope="row">{c.cluster}</th>
              <td>{c.stale ? <Badge>stale</Badge> : <Badge>fresh</Badge>}</td>
              <td>{formatTime(c.lastHeartbeat)}</td>
              <td>{formatAge(c.ageSeconds)}</td>
              <td>{c.synced === null ? '-' : c.synced ? 'yes' : 'no'}</td>
              <td>{c.watcher ?? '-'}</td>
            </tr>
          ))
        )}
      </tbody>
    </TableBox>
  );
}
