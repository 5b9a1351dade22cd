// The rollback's reason, its confirmation (type the appliance's name), the POST and its outcome.
import { useId, useState } from 'preact/hooks';
import type { RollbackReport } from '../api/reports.ts';
import { useApp } from '../app-context.ts';
import { ErrorBanner } from '../components/feedback.tsx';
import { href } from '../router.ts';

/** The form; after a rollback it shows the outcome instead. */
export function RollbackForm({ name, target, onDone }: { name: string; target: string; onDone: () => void }) {
  const { api } = useApp();
  const id = useId();
  const [reason, setReason] = useState('');
  const [confirm, setConfirm] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [outcome, setOutcome] = useState<RollbackReport | null>(null);
  if (outcome !== null) return <Outcome r={outcome} />;
  const ready = reason.trim() !== '' && confirm.trim() === name && !busy;
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    if (!ready) return;
    setBusy(true);
    setError(null);
    try {
      const body = { to: target, reason: reason.trim(), waitSeconds: 10 };
      setOutcome(await api.post<RollbackReport>(`/appliances/${encodeURIComponent(name)}/rollback`, body));
      onDone();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="stack-form rollback-form" onSubmit={submit} data-testid="rollback-form">
      <h2>Roll back to #{target}</h2>
      <div class="field">
        <label for={`${id}-reason`}>Reason (recorded with your name)</label>
        <textarea
          id={`${id}-reason`}
          rows={3}
          maxLength={1000}
          required
          value={reason}
          onInput={(e) => setReason(e.currentTarget.value)}
          data-testid="rollback-reason"
        />
      </div>
      <div class="field">
        <label for={`${id}-confirm`}>
          Type <strong>{name}</strong> to confirm
        </label>
        <input
          id={`${id}-confirm`}
          autoComplete="off"
          spellcheck={false}
          value={confirm}
          onInput={(e) => setConfirm(e.currentTarget.value)}
          data-testid="rollback-confirm"
        />
      </div>
      <ErrorBanner error={error} />
      <button type="submit" class="danger" disabled={!ready} data-testid="rollback-submit">
        {busy ? 'Rolling back… (waits up to 10 s for the apply)' : `Roll back ${name} to #${target}`}
      </button>
    </form>
  );
}

function Outcome({ r }: { r: RollbackReport }) {
  return (
    <div class="banner banner-ok outcome" role="status" data-testid="rollback-outcome">
      {r.rollbackSnapshot === null ? (
        <p>Rollback aborted: nothing was changed.</p>
      ) : (
        <>
          <p>
            Appended rollback snapshot{' '}
            <a href={href.snapshot(r.appliance, r.rollbackSnapshot)}>#{r.rollbackSnapshot}</a> (content of #{r.to.id})
            on top of #{r.from.id}, by {r.actor}.
          </p>
          <p>{r.appliance} is pinned: new plans are recorded but held until you resume planning on its page.</p>
          <p>
            {r.apply === null
              ? 'No apply of it was recorded within 10 s; follow the timeline.'
              : `Applied by apply ${r.apply.id}: ${r.apply.status}, finished ${r.apply.finishedAt}.`}
          </p>
        </>
      )}
      <p>
        <a href={href.appliance(r.appliance)}>Back to the timeline of {r.appliance}</a>
      </p>
    </div>
  );
}
