// Small shared pieces of feedback: the error banner, skeleton rows, status badges.
import type { ComponentChildren } from 'preact';
import { errorMessage } from '../api/api-client.ts';

/** A failure, said plainly, with a retry when the page can retry. */
export function ErrorBanner({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  if (error === null || error === undefined) return null;
  return (
    <div class="banner banner-error" role="alert" data-testid="error-banner">
      <span>{errorMessage(error)}</span>
      {onRetry && (
        <button type="button" class="button-small" onClick={onRetry}>
          Retry
        </button>
      )}
    </div>
  );
}

/** Placeholder rows of a table while it loads: the table keeps its height when the data arrives. */
export function SkeletonRows({ columns, rows = 3 }: { columns: number; rows?: number }) {
  return (
    <>
      {Array.from({ length: rows }, (_, r) => (
        <tr key={r} class="skeleton-row" aria-hidden="true" data-testid="skeleton-row">
          {Array.from({ length: columns }, (_, c) => (
            <td key={c}>
              <span class="skeleton" />
            </td>
          ))}
        </tr>
      ))}
    </>
  );
}

/** Placeholder lines for a block that is loading; announced once to screen readers. */
export function SkeletonBlock({ lines = 3, label = 'Loading' }: { lines?: number; label?: string }) {
  return (
    <div class="skeleton-block" role="status" aria-label={label}>
      {Array.from({ length: lines }, (_, i) => (
        <span key={i} class="skeleton" />
      ))}
    </div>
  );
}

const tones: Record<string, string> = {
  succeeded: 'ok',
  ok: 'ok',
  noop: 'muted',
  fresh: 'ok',
  partial: 'warn',
  held: 'warn',
  pinned: 'warn',
  rollback: 'info',
  failed: 'bad',
  stale: 'bad',
  'not sent': 'muted',
  added: 'ok',
  removed: 'bad',
  changed: 'warn',
};

/** A word in a coloured pill; the word itself carries the meaning (colour only repeats it). */
export function Badge({ children, tone }: { children: string; tone?: string }) {
  return <span class={`badge badge-${tone ?? tones[children] ?? 'muted'}`}>{children}</span>;
}

/** A titled block of a page. */
export function Section({ title, id, children }: { title: string; id?: string; children: ComponentChildren }) {
  return (
    <section class="section" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

/** A wide table in its own scrolling box, so the page itself never scrolls sideways. */
export function TableBox({ label, children, testid }: { label: string; children: ComponentChildren; testid?: string }) {
  return (
    <div class="table-box" role="region" aria-label={label} tabIndex={0} data-testid={testid}>
      <table>{children}</table>
    </div>
  );
}
