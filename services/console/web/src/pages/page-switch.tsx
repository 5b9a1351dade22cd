// Picks the page for the current route, titles the document, and moves focus to the new page's content when the
// page changes (not when a form on the same page updates the address), so keyboard and screen-reader users land
// at the top of what they opened.
import { useEffect, useRef } from 'preact/hooks';
import { href, useRoute, type Route } from '../router.ts';
import { AppliancePage } from './appliance-page.tsx';
import { AtPage } from './at-page.tsx';
import { DiffPage } from './diff-page.tsx';
import { ExplainPage } from './explain-page.tsx';
import { FleetPage } from './fleet-page.tsx';
import { OperationsPage } from './operations-page.tsx';
import { RollbackPage } from './rollback-page.tsx';
import { SnapshotPage } from './snapshot-page.tsx';

/** The page's identity, without the query a form on it changes. */
function pageKey(r: Route): string {
  return JSON.stringify({
    ...r,
    q: undefined,
    snapshot: undefined,
    time: undefined,
    to: r.page === 'diff' ? r.to : undefined,
  });
}

function titleOf(r: Route): string {
  switch (r.page) {
    case 'fleet':
      return 'Fleet';
    case 'appliance':
      return r.name;
    case 'snapshot':
      return `Snapshot ${r.id} of ${r.name}`;
    case 'operations':
      return `Apply ${r.applyId} of ${r.name}`;
    case 'explain':
      return `Explain on ${r.name}`;
    case 'at':
      return `${r.name} at a time`;
    case 'rollback':
      return `Roll back ${r.name}`;
    case 'diff':
      return `Diff ${r.from} → ${r.to}`;
    case 'not-found':
      return 'Not found';
  }
}

/** The current page. */
export function PageSwitch() {
  const route = useRoute();
  const key = pageKey(route);
  const first = useRef(true);
  useEffect(() => {
    document.title = `${titleOf(route)} · Portolan console`;
  }, [route]);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    window.scrollTo(0, 0);
    document.getElementById('main')?.focus({ preventScroll: true });
  }, [key]);
  return <div key={key}>{pageFor(route)}</div>;
}

function pageFor(r: Route) {
  switch (r.page) {
    case 'fleet':
      return <FleetPage />;
    case 'appliance':
      return <AppliancePage name={r.name} />;
    case 'snapshot':
      return <SnapshotPage name={r.name} id={r.id} />;
    case 'operations':
      return <OperationsPage name={r.name} applyId={r.applyId} />;
    case 'explain':
      return <ExplainPage name={r.name} q={r.q} snapshot={r.snapshot} />;
    case 'at':
      return <AtPage name={r.name} time={r.time} />;
    case 'rollback':
      return <RollbackPage name={r.name} to={r.to} />;
    case 'diff':
      return <DiffPage from={r.from} to={r.to} />;
    case 'not-found':
      return (
        <div>
          <h1>Not found</h1>
          <p>
            Nothing lives at <code>{r.path}</code>. <a href={href.fleet()}>Go to the fleet</a>.
          </p>
        </div>
      );
  }
}
