// Explain: which Kubernetes objects a vendor object or a host/path request comes from, and what last changed it.
// The question lives in the address (?q=…), so an answer can be linked to.
import { useId, useState } from 'preact/hooks';
import type { ExplainReport } from '../api/reports.ts';
import { useApp } from '../app-context.ts';
import { ErrorBanner, SkeletonBlock } from '../components/feedback.tsx';
import { href, navigate } from '../router.ts';
import { useResource } from '../use-resource.ts';
import { ExplainAnswer } from './explain-answer.tsx';

/** The explain page. */
export function ExplainPage({ name, q, snapshot }: { name: string; q: string; snapshot: string }) {
  const { api } = useApp();
  const r = useResource(`explain:${name}:${q}:${snapshot}`, (signal) =>
    q === ''
      ? Promise.resolve(null)
      : api.get<ExplainReport>(`/appliances/${encodeURIComponent(name)}/explain`, { q, snapshot }, signal),
  );
  return (
    <div class="page">
      <p class="crumbs">
        <a href={href.fleet()}>Fleet</a> / <a href={href.appliance(name)}>{name}</a> / explain
      </p>
      <h1>Explain on {name}</h1>
      <ExplainForm name={name} q={q} snapshot={snapshot} />
      <ErrorBanner error={r.error} onRetry={r.reload} />
      <div aria-live="polite">
        {q !== '' && r.data === null && r.error === null && <SkeletonBlock lines={5} label="Explaining" />}
        {r.data !== null && <ExplainAnswer r={r.data} />}
      </div>
    </div>
  );
}

function ExplainForm({ name, q, snapshot }: { name: string; q: string; snapshot: string }) {
  const id = useId();
  const [query, setQuery] = useState(q);
  const [snap, setSnap] = useState(snapshot);
  return (
    <form
      class="stack-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (query.trim() !== '') navigate(href.explain(name, query.trim(), snap.trim()));
      }}
      data-testid="explain-form"
    >
      <div class="field">
        <label for={`${id}-q`}>Vendor object or host/path</label>
        <input
          id={`${id}-q`}
          value={query}
          required
          placeholder="e.g. pool/shop_web_80 or shop.example.com/cart"
          onInput={(e) => setQuery(e.currentTarget.value)}
          aria-describedby={`${id}-hint`}
          data-testid="explain-query"
        />
        <p id={`${id}-hint`} class="hint">
          A vendor object as “What was live” lists it (a unique part of its name is enough), or a request as host/path.
        </p>
      </div>
      <div class="field field-narrow">
        <label for={`${id}-snap`}>Snapshot (empty: head)</label>
        <input
          id={`${id}-snap`}
          inputMode="numeric"
          pattern="[0-9]*"
          value={snap}
          onInput={(e) => setSnap(e.currentTarget.value)}
        />
      </div>
      <button type="submit" class="primary" data-testid="explain-submit">
        Explain
      </button>
    </form>
  );
}
