// One entry of the timeline: what happened, when, and links to look closer (the snapshot, its diff with its
// parent, a rollback to it, the operations of an apply).
import type { ApplyEntry, HistoryEntry, OperatorEntry, SnapshotEntry } from '../api/types.ts';
import { Badge } from '../components/feedback.tsx';
import { formatDuration, formatTime } from '../format.ts';
import { href } from '../router.ts';

const kindLabel: Record<HistoryEntry['type'], string> = {
  snapshot: 'Snapshot',
  apply: 'Apply',
  drift: 'Drift',
  hold: 'Hold',
  release: 'Hold released',
  approval: 'Approval',
  rollback: 'Rollback',
  resume: 'Resume',
};

/** The snapshot an entry is about, for `data-snapshot-id` (tests and links find entries by it). */
function snapshotOf(e: HistoryEntry): string | undefined {
  if (e.type === 'snapshot') return e.id;
  if (e.type === 'hold' || e.type === 'release') return undefined;
  return e.snapshot ?? undefined;
}

/** One timeline entry. */
export function TimelineEntry({ e, appliance, operator }: { e: HistoryEntry; appliance: string; operator: boolean }) {
  return (
    <li
      class={`entry entry-${e.type}`}
      data-testid="timeline-entry"
      data-kind={e.type}
      data-entry-id={e.id}
      data-snapshot-id={snapshotOf(e)}
    >
      <div class="entry-head">
        <span class="entry-kind">{kindLabel[e.type]}</span>
        <time dateTime={e.at}>{formatTime(e.at)}</time>
      </div>
      <EntryBody e={e} appliance={appliance} operator={operator} />
    </li>
  );
}

function EntryBody({ e, appliance, operator }: { e: HistoryEntry; appliance: string; operator: boolean }) {
  switch (e.type) {
    case 'snapshot':
      return <SnapshotBody e={e} appliance={appliance} operator={operator} />;
    case 'apply':
      return <ApplyBody e={e} appliance={appliance} />;
    case 'drift':
      return (
        <p>
          {e.action}: {e.objects.join(', ') || '(no objects)'}
          {e.snapshot !== null && (
            <>
              {' '}
              against snapshot <a href={href.snapshot(appliance, e.snapshot)}>#{e.snapshot}</a>
            </>
          )}
        </p>
      );
    case 'hold':
      return (
        <p>
          Removal of <code>{e.object}</code> held: {e.reason}
        </p>
      );
    case 'release':
      return (
        <p>
          <code>{e.object}</code> released{e.by !== null ? ` by ${e.by}` : ''}
          {e.removed === true ? ' (removed)' : ''}: {e.reason || '-'}
        </p>
      );
    default:
      return <OperatorBody e={e} appliance={appliance} />;
  }
}

function SnapshotBody({ e, appliance, operator }: { e: SnapshotEntry; appliance: string; operator: boolean }) {
  const c = e.cause;
  return (
    <>
      <p class="entry-title">
        <a href={href.snapshot(appliance, e.id)}>Snapshot #{e.id}</a>{' '}
        {e.origin === 'rollback' && <Badge>rollback</Badge>} {e.held && <Badge>held</Badge>}
        {e.held && e.holdReason !== null && <span class="muted"> {e.holdReason}</span>}
        {e.reason !== null && <span class="muted"> Reason: {e.reason}</span>}
      </p>
      {c.objects.length > 0 ? (
        <details class="cause" open={c.objects.length <= 3}>
          <summary>
            Caused by {c.objects.length} Kubernetes change{c.objects.length === 1 ? '' : 's'}
            {c.events > c.objects.length ? ` (of ${c.events} events folded)` : ''}
          </summary>
          <ul class="cause-list" data-testid="snapshot-cause">
            {c.objects.map((o) => (
              <li key={`${o.seq}:${o.object}`}>
                <span class="event">{o.event}</span> <code>{o.object}</code>{' '}
                <span class="muted">
                  rv {o.resourceVersion} · seq {o.seq}
                </span>
              </li>
            ))}
          </ul>
        </details>
      ) : (
        <p class="muted">No Kubernetes change recorded (configuration or planner change, or an operator write).</p>
      )}
      <p class="entry-links">
        <a href={href.snapshot(appliance, e.id)} data-testid="snapshot-view-link">
          View
        </a>
        {e.parent !== null && (
          <a href={href.diff(e.parent, e.id)} data-testid="snapshot-diff-link">
            Diff with parent #{e.parent}
          </a>
        )}
        {operator && (
          <a href={href.rollback(appliance, e.id)} data-testid="snapshot-rollback-link">
            Roll back to this
          </a>
        )}
      </p>
    </>
  );
}

function ApplyBody({ e, appliance }: { e: ApplyEntry; appliance: string }) {
  const ms = Date.parse(e.at) - Date.parse(e.startedAt);
  return (
    <>
      <p class="entry-title">
        <Badge>{e.status}</Badge> snapshot <a href={href.snapshot(appliance, e.snapshot)}>#{e.snapshot}</a>,{' '}
        {e.operations} operation{e.operations === 1 ? '' : 's'}
        {e.failed > 0 ? `, ${e.failed} failed` : ''} in {formatDuration(ms)}
      </p>
      <p class="muted">
        trigger {e.trigger} · leader {e.leader} · epoch {e.epoch}
        {e.reason !== null ? ` · ${e.reason}` : ''}
        {e.rollbackReason !== null ? ` · rollback: ${e.rollbackReason}` : ''}
      </p>
      <p class="entry-links">
        <a href={href.operations(appliance, e.id)} data-testid="apply-operations-link">
          Operations of apply {e.id}
        </a>
      </p>
    </>
  );
}

function OperatorBody({ e, appliance }: { e: OperatorEntry; appliance: string }) {
  const snap = (id: string | null) => (id === null ? '-' : <a href={href.snapshot(appliance, id)}>#{id}</a>);
  return (
    <>
      <p class="entry-title">
        By <strong>{e.actor}</strong>: {e.reason}
      </p>
      <p class="muted">
        {e.type === 'approval' &&
          (e.approvalSeq === null ? 'Nothing was held.' : `Approval at sequence ${e.approvalSeq}.`)}
        {e.type === 'rollback' && (
          <>
            To snapshot {snap(e.snapshot)}, appended as {snap(e.resultSnapshot)}.
          </>
        )}
        {e.type === 'resume' && (
          <>
            Pin to {snap(e.snapshot)} removed
            {e.resultSnapshot !== null ? <>; released plan {snap(e.resultSnapshot)}</> : ''}.
          </>
        )}
      </p>
    </>
  );
}
