// Approve and resume: buttons that open a reason dialog, then show what the console did. Operators only (the
// server refuses viewers anyway; they do not see the buttons).
import { useState } from 'preact/hooks';
import type { ApproveReport, ResumeReport } from '../api/reports.ts';
import { useApp } from '../app-context.ts';
import { ReasonDialog } from '../components/reason-dialog.tsx';
import { href } from '../router.ts';

const path = (name: string, what: string): string => `/appliances/${encodeURIComponent(name)}/${what}`;

function approveOutcome(r: ApproveReport) {
  if (r.approval === null) return <p>Nothing was held for {r.appliance}; your approval was recorded.</p>;
  return (
    <>
      <p>
        Approval {r.approval.seq} recorded by {r.actor}: {r.held.length} held removal(s).
      </p>
      {r.released === null ? (
        <p>The planner has not folded it yet; follow the timeline.</p>
      ) : (
        <ul>
          {r.released.map((h) => (
            <li key={`${h.cluster}/${h.kind}/${h.object}`}>
              Released {h.cluster} {h.kind} {h.object}
            </li>
          ))}
        </ul>
      )}
      {r.apply !== null && (
        <p>
          Applied in snapshot {r.apply.snapshotId} ({r.apply.status}), {r.apply.afterMs} ms after the approval.
        </p>
      )}
    </>
  );
}

function resumeOutcome(r: ResumeReport) {
  if (r.unpinned === null) return <p>{r.appliance} was not pinned; planning applies normally.</p>;
  return (
    <p>
      Removed the pin to snapshot {r.unpinned.snapshotId} (by {r.actor}).{' '}
      {r.released === null
        ? 'The next planner snapshot applies normally.'
        : `Released the plan held meanwhile as snapshot ${r.released}.`}
    </p>
  );
}

/** The write buttons of an appliance; `pinned` shows resume as the action that matters. */
export function WriteActions({ name, pinned, onDone }: { name: string; pinned: boolean; onDone: () => void }) {
  const { api } = useApp();
  const [open, setOpen] = useState<'approve' | 'resume' | null>(null);
  const close = (): void => {
    setOpen(null);
    onDone();
  };
  return (
    <div class="actions" data-testid="write-actions">
      <button type="button" onClick={() => setOpen('approve')} data-testid="approve-button">
        Approve held removals…
      </button>
      <button
        type="button"
        onClick={() => setOpen('resume')}
        data-testid="resume-button"
        class={pinned ? 'primary' : ''}
      >
        Resume planning…
      </button>
      <a class="button" href={href.rollback(name)} data-testid="rollback-link">
        Roll back…
      </a>
      {open === 'approve' && (
        <ReasonDialog
          testid="approve-dialog"
          title={`Approve held removals on ${name}`}
          intro={<p>Releases every removal the safety rule holds in the clusters {name} serves.</p>}
          submitLabel="Approve"
          busyLabel="Approving… (waits up to 10 s for the planner)"
          onSubmit={async (reason) =>
            approveOutcome(await api.post<ApproveReport>(path(name, 'approve'), { reason, waitSeconds: 10 }))
          }
          onClose={close}
        />
      )}
      {open === 'resume' && (
        <ReasonDialog
          testid="resume-dialog"
          title={`Resume planning on ${name}`}
          intro={<p>Removes the rollback pin: the current plan applies again.</p>}
          submitLabel="Resume"
          busyLabel="Resuming…"
          onSubmit={async (reason) => resumeOutcome(await api.post<ResumeReport>(path(name, 'resume'), { reason }))}
          onClose={close}
        />
      )}
    </div>
  );
}
