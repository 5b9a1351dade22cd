// The rollback flow: pick a target snapshot, read the diff head → target, give a reason, confirm by typing the
// appliance's name, then see what the console did. The target lives in the address (?to=…).
import { useEffect, useState } from 'preact/hooks';
import type { HistoryReport, SnapshotEntry } from '../api/types.ts';
import { useApp, useIsOperator } from '../app-context.ts';
import { DiffView } from '../components/diff-view.tsx';
import { ErrorBanner, SkeletonBlock } from '../components/feedback.tsx';
import type { DiffReport } from '../api/types.ts';
import { formatTime } from '../format.ts';
import { href, navigate } from '../router.ts';
import { useResource } from '../use-resource.ts';
import { RollbackForm } from './rollback-form.tsx';
import { useAppliance } from './use-appliance.ts';

/** The rollback page. */
export function RollbackPage({ name, to }: { name: string; to: string }) {
  const operator = useIsOperator();
  return (
    <div class="page">
      <p class="crumbs">
        <a href={href.fleet()}>Fleet</a> / <a href={href.appliance(name)}>{name}</a> / roll back
      </p>
      <h1>Roll back {name}</h1>
      {operator ? (
        <RollbackFlow name={name} to={to} />
      ) : (
        <p class="banner banner-info" data-testid="rollback-forbidden">
          Only operators can roll back. You are signed in as a viewer.
        </p>
      )}
    </div>
  );
}

function RollbackFlow({ name, to }: { name: string; to: string }) {
  const { api } = useApp();
  const appliance = useAppliance(name);
  const snapshots = useResource(`rollback-targets:${name}`, async (signal) => {
    const r = await api.get<HistoryReport>(
      `/appliances/${encodeURIComponent(name)}/history`,
      { kind: ['snapshot'] },
      signal,
    );
    return r.entries.filter((e): e is SnapshotEntry => e.type === 'snapshot').reverse();
  });
  const current = appliance.data?.head?.id ?? null;
  // The diff and the form stay on the head the reader started from: a new snapshot arriving (or the rollback's own)
  // must not swap the diff or wipe a half-written reason. A moved head is said, and adopted on request.
  const [head, setHead] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  useEffect(() => {
    if (head === null && current !== null) setHead(current);
  }, [head, current]);
  return (
    <>
      <p>
        A rollback appends a snapshot with the target's content on top of the head (history keeps both) and pins {name}:
        new plans are recorded but held until you resume planning.
      </p>
      <ErrorBanner error={appliance.error ?? snapshots.error} />
      {snapshots.data === null || appliance.data === null ? (
        <SkeletonBlock lines={2} label="Loading snapshots" />
      ) : head === null ? (
        <p>{name} has no snapshot yet: there is nothing to roll back.</p>
      ) : (
        <>
          {!done && current !== null && current !== head && (
            <p class="banner banner-info" role="status" data-testid="rollback-head-moved">
              The head moved to #{current} since this page opened.
              <button type="button" class="button-small" onClick={() => setHead(current)}>
                Compare with #{current}
              </button>
            </p>
          )}
          <TargetPicker name={name} to={to} head={head} snapshots={snapshots.data} />
          {to !== '' && to !== head && (
            <HeadDiff key={head} name={name} head={head} target={to} onDone={() => setDone(true)} />
          )}
        </>
      )}
    </>
  );
}

function TargetPicker(p: { name: string; to: string; head: string; snapshots: readonly SnapshotEntry[] }) {
  const known = p.snapshots.some((s) => s.id === p.to);
  return (
    <div class="field">
      <label for="rollback-target">Target snapshot (head is #{p.head})</label>
      <select
        id="rollback-target"
        value={p.to}
        onChange={(e) => navigate(href.rollback(p.name, e.currentTarget.value))}
        data-testid="rollback-target"
      >
        <option value="">Choose a snapshot…</option>
        {!known && p.to !== '' && <option value={p.to}>#{p.to}</option>}
        {p.snapshots.map((s) => (
          <option key={s.id} value={s.id} disabled={s.id === p.head}>
            #{s.id} · {formatTime(s.at)} · {s.origin}
            {s.held ? ' · held' : ''}
            {s.id === p.head ? ' · head' : ''}
          </option>
        ))}
      </select>
      {p.to === p.head && <p class="hint">That is the head already: choose an earlier snapshot.</p>}
    </div>
  );
}

/** The diff head → target, then (once it has been shown) the form that confirms the rollback. */
function HeadDiff({ name, head, target, onDone }: { name: string; head: string; target: string; onDone: () => void }) {
  const { api } = useApp();
  const d = useResource(`diff:${head}:${target}`, (signal) =>
    api.get<DiffReport>('/diff', { from: head, to: target }, signal),
  );
  return (
    <section class="section" aria-label={`What changes: head #${head} to #${target}`}>
      <h2>
        What changes: head #{head} → #{target}
      </h2>
      <ErrorBanner error={d.error} onRetry={d.reload} />
      {d.data === null ? (
        d.error === null && <SkeletonBlock lines={5} label="Loading the diff" />
      ) : (
        <>
          <DiffView r={d.data} nested />
          <RollbackForm name={name} target={target} onDone={onDone} />
        </>
      )}
    </section>
  );
}
