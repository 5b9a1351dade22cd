// A modal that asks for a reason before a write. Native <dialog> with showModal(): the rest of the page is inert
// (focus stays inside), Escape closes it, and focus returns to the button that opened it.
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { ErrorBanner } from './feedback.tsx';

/** What the dialog asks and does. */
export interface ReasonDialogProps {
  readonly title: string;
  readonly intro: ComponentChildren;
  readonly submitLabel: string;
  /** Shown while the write runs (a write may wait for the planner). */
  readonly busyLabel: string;
  /** Runs the write; its result is shown by `outcome` in the dialog. */
  readonly onSubmit: (reason: string) => Promise<ComponentChildren>;
  readonly onClose: () => void;
  readonly testid: string;
}

/** The reason dialog, open while mounted. */
export function ReasonDialog(p: ReasonDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const opener = useRef<Element | null>(null);
  const id = useId();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [outcome, setOutcome] = useState<ComponentChildren>(null);
  useEffect(() => {
    opener.current = document.activeElement;
    ref.current?.showModal();
    return () => {
      if (opener.current instanceof HTMLElement) opener.current.focus();
    };
  }, []);
  const close = (): void => ref.current?.close();
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    if (busy || reason.trim() === '') return;
    setBusy(true);
    setError(null);
    try {
      setOutcome(await p.onSubmit(reason.trim()));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <dialog
      ref={ref}
      class="dialog"
      aria-labelledby={`${id}-title`}
      onClose={p.onClose}
      // Escape while the write runs would hide its outcome: the dialog stays until the answer comes.
      onCancel={(e) => busy && e.preventDefault()}
      data-testid={p.testid}
    >
      <h2 id={`${id}-title`}>{p.title}</h2>
      {outcome === null ? (
        <ReasonForm
          p={p}
          busy={busy}
          error={error}
          reason={reason}
          setReason={setReason}
          submit={submit}
          onCancel={close}
        />
      ) : (
        <Outcome outcome={outcome} onClose={close} />
      )}
    </dialog>
  );
}

/** The reason field and the buttons. */
function ReasonForm(f: {
  p: ReasonDialogProps;
  busy: boolean;
  error: unknown;
  reason: string;
  setReason: (r: string) => void;
  submit: (e: Event) => Promise<void>;
  onCancel: () => void;
}) {
  const id = useId();
  return (
    <form onSubmit={f.submit}>
      <div class="dialog-intro">{f.p.intro}</div>
      <label for={`${id}-reason`}>Reason (recorded with your name)</label>
      <textarea
        id={`${id}-reason`}
        required
        maxLength={1000}
        rows={3}
        value={f.reason}
        onInput={(e) => f.setReason(e.currentTarget.value)}
        data-testid="dialog-reason"
      />
      <ErrorBanner error={f.error} />
      <div class="dialog-actions">
        <button type="button" onClick={f.onCancel}>
          Cancel
        </button>
        <button type="submit" class="primary" disabled={f.busy || f.reason.trim() === ''} data-testid="dialog-submit">
          {f.busy ? f.p.busyLabel : f.p.submitLabel}
        </button>
      </div>
    </form>
  );
}

/** What the write did, and the way out. */
function Outcome({ outcome, onClose }: { outcome: ComponentChildren; onClose: () => void }) {
  return (
    <div>
      <div class="dialog-outcome" role="status" data-testid="dialog-outcome">
        {outcome}
      </div>
      <div class="dialog-actions">
        <button type="button" class="primary" onClick={onClose} autoFocus>
          Close
        </button>
      </div>
    </div>
  );
}
