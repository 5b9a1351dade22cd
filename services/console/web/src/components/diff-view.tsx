// A diff between two snapshots side by side: a "from" and a "to" column whose rows line up object by object
// (CSS subgrid), then the vendor operations a push would make. Used by the diff page and the rollback flow.
import type { DiffReport, ObjectDifference, SnapshotHeader } from '../api/types.ts';
import { formatTime } from '../format.ts';
import { href } from '../router.ts';
import { Badge, TableBox } from './feedback.tsx';

function objectName(d: ObjectDifference): string {
  return d.key.slice(d.key.indexOf('/') + 1);
}

function Cell({ d, side }: { d: ObjectDifference; side: 'from' | 'to' }) {
  const text = side === 'from' ? d.before : d.after;
  const absent = text === '';
  return (
    <div class={`diff-cell diff-${d.change}${absent ? ' diff-absent' : ''}`} data-change={d.change}>
      <div class="diff-object">
        <Badge>{d.change}</Badge> <span class="muted">{d.kind}</span> <code>{objectName(d)}</code>
      </div>
      <div class="diff-text">{absent ? (side === 'from' ? '(not present)' : '(removed)') : text}</div>
    </div>
  );
}

function Column({
  side,
  header,
  objects,
}: {
  side: 'from' | 'to';
  header: SnapshotHeader;
  objects: readonly ObjectDifference[];
}) {
  return (
    <section
      class="diff-column"
      style={{ gridRow: `span ${objects.length + 1}` }}
      aria-label={`${side === 'from' ? 'From' : 'To'} snapshot ${header.id}`}
      data-testid={`diff-${side}`}
    >
      <h3 class="diff-head">
        {side === 'from' ? 'From' : 'To'} <a href={href.snapshot(header.appliance, header.id)}>#{header.id}</a>
        {header.origin === 'rollback' && (
          <>
            {' '}
            <Badge>rollback</Badge>
          </>
        )}
        <span class="muted small"> {formatTime(header.createdAt)}</span>
      </h3>
      {objects.map((d) => (
        <Cell key={`${d.change}:${d.key}`} d={d} side={side} />
      ))}
    </section>
  );
}

/** The vendor operations, or why they are missing. */
function Operations({ r }: { r: DiffReport }) {
  if (r.operations === null)
    return <p data-testid="diff-operations">Vendor operations not computed: {r.note ?? 'unknown reason'}.</p>;
  if (r.operations.length === 0)
    return <p data-testid="diff-operations">None: the appliance configuration would not change.</p>;
  return (
    <TableBox label="Vendor operations" testid="diff-operations">
      <thead>
        <tr>
          <th scope="col">#</th>
          <th scope="col">Action</th>
          <th scope="col">Type</th>
          <th scope="col">Object</th>
          <th scope="col">Summary</th>
        </tr>
      </thead>
      <tbody>
        {r.operations.map((o, i) => (
          <tr key={i}>
            <td>{i + 1}</td>
            <td>{o.action}</td>
            <td>{o.objectType}</td>
            <td>
              <code>{o.objectName}</code>
            </td>
            <td>{o.summary}</td>
          </tr>
        ))}
      </tbody>
    </TableBox>
  );
}

/** The whole diff; `nested` when it sits under a heading of its own (the rollback flow). */
export function DiffView({ r, nested = false }: { r: DiffReport; nested?: boolean }) {
  const H = nested ? 'h3' : 'h2';
  const counts = (['added', 'removed', 'changed'] as const)
    .map((c) => `${r.objects.filter((d) => d.change === c).length} ${c}`)
    .join(', ');
  return (
    <div class="diff" data-testid="diff-view">
      <H>Objects ({r.objects.length === 0 ? 'no differences' : counts})</H>
      {r.objects.length === 0 ? (
        <p data-testid="diff-empty">The two snapshots have the same desired state.</p>
      ) : (
        <div class="diff-grid">
          <Column side="from" header={r.from} objects={r.objects} />
          <Column side="to" header={r.to} objects={r.objects} />
        </div>
      )}
      <h2>
        Vendor operations a push from #{r.from.id} to #{r.to.id} would make
      </h2>
      <Operations r={r} />
    </div>
  );
}
