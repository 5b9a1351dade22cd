// An appliance: its head, pin and last apply, the write actions (operators), and its timeline.
import type { ApplianceSummary } from '../api/types.ts';
import { useIsOperator } from '../app-context.ts';
import { Badge, ErrorBanner, SkeletonBlock } from '../components/feedback.tsx';
import { formatTime } from '../format.ts';
import { href } from '../router.ts';
import { Timeline } from './timeline.tsx';
import { useAppliance } from './use-appliance.ts';
import { WriteActions } from './write-actions.tsx';

/** The appliance page. */
export function AppliancePage({ name }: { name: string }) {
  const operator = useIsOperator();
  const a = useAppliance(name);
  return (
    <div class="page">
      <p class="crumbs">
        <a href={href.fleet()}>Fleet</a> / {name}
      </p>
      <h1>{name}</h1>
      <ErrorBanner error={a.error} onRetry={a.reload} />
      {a.data === null ? (
        a.error === null && <SkeletonBlock lines={8} label={`Loading ${name}`} />
      ) : (
        <>
          <Summary a={a.data} />
          <nav class="page-links" aria-label={`Views of ${name}`}>
            <a href={href.explain(name)} data-testid="explain-link">
              Explain an object or request
            </a>
            <a href={href.at(name)} data-testid="at-link">
              What was live at a time
            </a>
          </nav>
          {operator && <WriteActions name={name} pinned={a.data.pin !== null} onDone={a.reload} />}
          <h2>Timeline</h2>
          <Timeline appliance={name} clusters={a.data.clusters} operator={operator} />
        </>
      )}
    </div>
  );
}

function Summary({ a }: { a: ApplianceSummary }) {
  return (
    <dl class="summary" data-testid="appliance-summary">
      <div>
        <dt>Driver</dt>
        <dd>{a.driver}</dd>
      </div>
      <div>
        <dt>Clusters</dt>
        <dd>{a.clusters.join(', ') || '-'}</dd>
      </div>
      <div>
        <dt>Head</dt>
        <dd>
          {a.head === null ? (
            'no snapshot yet'
          ) : (
            <>
              <a href={href.snapshot(a.name, a.head.id)}>#{a.head.id}</a> {a.head.held && <Badge>held</Badge>}{' '}
              {a.head.origin === 'rollback' && <Badge>rollback</Badge>}
              <span class="muted"> {formatTime(a.head.createdAt)}</span>
            </>
          )}
        </dd>
      </div>
      <div>
        <dt>Last apply</dt>
        <dd>
          {a.lastApply === null ? (
            'none'
          ) : (
            <>
              <a href={href.operations(a.name, a.lastApply.id)}>#{a.lastApply.id}</a>{' '}
              <Badge>{a.lastApply.status}</Badge> of #{a.lastApply.snapshotId}{' '}
              <span class="muted">{formatTime(a.lastApply.finishedAt)}</span>
            </>
          )}
        </dd>
      </div>
      <div>
        <dt>Pin</dt>
        <dd data-testid="appliance-pin">
          {a.pin === null ? (
            'not pinned'
          ) : (
            <>
              <Badge>pinned</Badge> to #{a.pin.snapshotId} since {formatTime(a.pin.since)}
              {a.pin.actor !== null ? ` by ${a.pin.actor}` : ''}
              {a.pin.reason !== null ? `: ${a.pin.reason}` : ''}
            </>
          )}
        </dd>
      </div>
    </dl>
  );
}
