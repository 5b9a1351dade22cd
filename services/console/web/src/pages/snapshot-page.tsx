// One snapshot: its header, links (diff with parent, roll back to it), what it holds, its conditions and the vendor
// objects it renders to.
import type { ObjectRef, ShowReport } from '../api/types.ts';
import { useApp, useIsOperator } from '../app-context.ts';
import { ErrorBanner, Section, SkeletonBlock, TableBox } from '../components/feedback.tsx';
import { SnapshotHeaderList } from '../components/snapshot-header.tsx';
import { href } from '../router.ts';
import { useResource } from '../use-resource.ts';

/** The snapshot page. */
export function SnapshotPage({ name, id }: { name: string; id: string }) {
  const { api } = useApp();
  const operator = useIsOperator();
  const r = useResource(`snapshot:${id}`, (signal) =>
    api.get<ShowReport>(`/snapshots/${encodeURIComponent(id)}`, { vendor: 'true' }, signal),
  );
  const s = r.data;
  return (
    <div class="page">
      <p class="crumbs">
        <a href={href.fleet()}>Fleet</a> / <a href={href.appliance(name)}>{name}</a> / snapshot #{id}
      </p>
      <h1>Snapshot #{id}</h1>
      <ErrorBanner error={r.error} onRetry={r.reload} />
      {s === null ? (
        r.error === null && <SkeletonBlock lines={8} label="Loading the snapshot" />
      ) : (
        <>
          <SnapshotHeaderList h={s.snapshot} />
          <p class="page-links">
            {s.snapshot.parent !== null && (
              <a href={href.diff(s.snapshot.parent, id)}>Diff with parent #{s.snapshot.parent}</a>
            )}
            <a href={href.explain(name, '', id)}>Explain in this snapshot</a>
            {operator && (
              <a href={href.rollback(name, id)} data-testid="snapshot-rollback-link">
                Roll back to this
              </a>
            )}
          </p>
          <Contents s={s} />
        </>
      )}
    </div>
  );
}

function Contents({ s }: { s: ShowReport }) {
  const d = s.desired;
  return (
    <>
      <Section title={`Virtual services (${d.virtualServices.length})`}>
        <ul class="plain-list">
          {d.virtualServices.map((v) => (
            <li key={v.name}>
              <code>{v.name}</code> {v.protocol} :{v.port}, {v.routes.length} route{v.routes.length === 1 ? '' : 's'}
            </li>
          ))}
        </ul>
        <p class="muted small">
          {count(d.pools.length, 'pool')} (
          {count(
            d.pools.reduce((n, p) => n + p.members.length, 0),
            'member',
          )}
          ), {count(d.certificates.length, 'certificate')}.
        </p>
      </Section>
      {d.conditions.length > 0 && (
        <Section title={`Conditions (${d.conditions.length})`}>
          <TableBox label="Conditions">
            <thead>
              <tr>
                <th scope="col">Object</th>
                <th scope="col">Type</th>
                <th scope="col">Reason</th>
                <th scope="col">Message</th>
              </tr>
            </thead>
            <tbody>
              {d.conditions.map((c, i) => (
                <tr key={i}>
                  <td>
                    <code>{refString(c.object)}</code>
                  </td>
                  <td>{c.type}</td>
                  <td>{c.reason}</td>
                  <td>{c.message}</td>
                </tr>
              ))}
            </tbody>
          </TableBox>
        </Section>
      )}
      <Section title={`Vendor objects (${s.vendor?.length ?? 0}, ${d.driver})`}>
        <VendorTable objects={s.vendor ?? []} />
      </Section>
      <details class="raw">
        <summary>Desired state as JSON</summary>
        <pre>{JSON.stringify(d, null, 2)}</pre>
      </details>
    </>
  );
}

/** `cluster/Kind/namespace/name`, without the namespace for cluster-scoped objects (as the CLI writes them). */
function refString(r: ObjectRef): string {
  return [r.cluster, r.kind, r.namespace, r.name].filter((p) => p !== '').join('/');
}

/** `1 pool`, `3 pools`. */
function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** Vendor objects: id and detail. */
export function VendorTable({
  objects,
  testid,
}: {
  objects: readonly { id: string; detail: string }[];
  testid?: string;
}) {
  if (objects.length === 0) return <p>None.</p>;
  return (
    <TableBox label="Vendor objects" testid={testid ?? 'vendor-objects'}>
      <thead>
        <tr>
          <th scope="col">Object</th>
          <th scope="col">Detail</th>
        </tr>
      </thead>
      <tbody>
        {objects.map((o) => (
          <tr key={o.id}>
            <td>
              <code>{o.id}</code>
            </td>
            <td>{o.detail}</td>
          </tr>
        ))}
      </tbody>
    </TableBox>
  );
}
