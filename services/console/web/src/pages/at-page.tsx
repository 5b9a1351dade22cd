// What was live at a time: the vendor objects the appliance held then (the read-back of the apply in force).
import { useId, useState } from 'preact/hooks';
import type { AtReport } from '../api/reports.ts';
import { useApp } from '../app-context.ts';
import { Badge, ErrorBanner, Section, SkeletonBlock } from '../components/feedback.tsx';
import { formatTime, fromLocalInput, toLocalInput } from '../format.ts';
import { href, navigate } from '../router.ts';
import { useResource } from '../use-resource.ts';
import { VendorTable } from './snapshot-page.tsx';

/** The page; `time` is an ISO time from the address (empty: ask for one). */
export function AtPage({ name, time }: { name: string; time: string }) {
  const { api } = useApp();
  const r = useResource(`at:${name}:${time}`, (signal) =>
    time === ''
      ? Promise.resolve(null)
      : api.get<AtReport>(`/appliances/${encodeURIComponent(name)}/at`, { time }, signal),
  );
  return (
    <div class="page">
      <p class="crumbs">
        <a href={href.fleet()}>Fleet</a> / <a href={href.appliance(name)}>{name}</a> / at a time
      </p>
      <h1>What was live on {name}</h1>
      <AtForm name={name} time={time} />
      <ErrorBanner error={r.error} onRetry={r.reload} />
      <div aria-live="polite">
        {time !== '' && r.data === null && r.error === null && <SkeletonBlock lines={6} label="Loading" />}
        {r.data !== null && <AtAnswer r={r.data} />}
      </div>
    </div>
  );
}

function AtForm({ name, time }: { name: string; time: string }) {
  const id = useId();
  const [value, setValue] = useState(() => toLocalInput(time === '' ? new Date() : new Date(time)));
  const iso = fromLocalInput(value);
  return (
    <form
      class="stack-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (iso !== null) navigate(href.at(name, iso));
      }}
      data-testid="at-form"
    >
      <div class="field field-narrow">
        <label for={`${id}-time`}>Time (your local time)</label>
        <input
          id={`${id}-time`}
          type="datetime-local"
          step={1}
          required
          value={value}
          onInput={(e) => setValue(e.currentTarget.value)}
          data-testid="at-time"
        />
      </div>
      <button type="submit" class="primary" disabled={iso === null} data-testid="at-submit">
        Show
      </button>
    </form>
  );
}

function AtAnswer({ r }: { r: AtReport }) {
  return (
    <div data-testid="at-answer">
      <p>
        At {formatTime(r.time)}: as recorded after apply{' '}
        <a href={href.operations(r.appliance, r.apply.id)}>{r.apply.id}</a> <Badge>{r.apply.status}</Badge> (finished{' '}
        {formatTime(r.apply.finishedAt)}, {r.apply.trigger}) of snapshot{' '}
        <a href={href.snapshot(r.appliance, r.snapshot.id)}>#{r.snapshot.id}</a>
        {r.snapshot.origin === 'rollback' && (
          <>
            {' '}
            <Badge>rollback</Badge>
          </>
        )}
        .
      </p>
      {r.differencesFromPlan.length > 0 ? (
        <p class="banner banner-warn">
          The recorded state differed from the snapshot by {r.differencesFromPlan.length} operation(s):{' '}
          {r.differencesFromPlan.map((o) => o.summary).join('; ')}
        </p>
      ) : (
        <p>The recorded state matched the snapshot.</p>
      )}
      {r.driftAfter.map((d) => (
        <p key={d.id} class="banner banner-warn">
          Drift observed at {formatTime(d.at)} ({d.action}): {d.objects.join(', ')}
        </p>
      ))}
      <Section title={`Vendor objects (${r.objects.length})`}>
        <VendorTable objects={r.objects} testid="at-objects" />
      </Section>
    </div>
  );
}
