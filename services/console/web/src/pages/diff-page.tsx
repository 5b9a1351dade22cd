// Two snapshots compared: a small form to pick others, then the side-by-side diff.
import { useId, useState } from 'preact/hooks';
import type { DiffReport } from '../api/types.ts';
import { useApp } from '../app-context.ts';
import { DiffView } from '../components/diff-view.tsx';
import { ErrorBanner, SkeletonBlock } from '../components/feedback.tsx';
import { href, navigate } from '../router.ts';
import { useResource } from '../use-resource.ts';

/** The diff page. */
export function DiffPage({ from, to }: { from: string; to: string }) {
  const { api } = useApp();
  const r = useResource(`diff:${from}:${to}`, (signal) => api.get<DiffReport>('/diff', { from, to }, signal));
  const appliance = r.data?.to.appliance;
  return (
    <div class="page">
      <p class="crumbs">
        <a href={href.fleet()}>Fleet</a>
        {appliance !== undefined && (
          <>
            {' '}
            / <a href={href.appliance(appliance)}>{appliance}</a>
          </>
        )}{' '}
        / diff
      </p>
      <h1>
        Snapshot #{from} → #{to}
      </h1>
      <CompareForm from={from} to={to} />
      <ErrorBanner error={r.error} onRetry={r.reload} />
      {r.data === null ? (
        r.error === null && <SkeletonBlock lines={8} label="Loading the diff" />
      ) : (
        <DiffView r={r.data} />
      )}
    </div>
  );
}

function CompareForm({ from, to }: { from: string; to: string }) {
  const id = useId();
  const [a, setA] = useState(from);
  const [b, setB] = useState(to);
  return (
    <form
      class="inline-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (/^\d+$/.test(a) && /^\d+$/.test(b)) navigate(href.diff(a, b));
      }}
    >
      <label for={`${id}-from`}>From snapshot</label>
      <input
        id={`${id}-from`}
        inputMode="numeric"
        pattern="[0-9]+"
        size={8}
        value={a}
        onInput={(e) => setA(e.currentTarget.value)}
      />
      <label for={`${id}-to`}>to snapshot</label>
      <input
        id={`${id}-to`}
        inputMode="numeric"
        pattern="[0-9]+"
        size={8}
        value={b}
        onInput={(e) => setB(e.currentTarget.value)}
      />
      <button type="submit">Compare</button>
    </form>
  );
}
