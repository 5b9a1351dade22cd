// The answer of explain: the target, the Kubernetes objects behind it, conditions, and its last change.
import type { ExplainReport } from '../api/reports.ts';
import { Section, TableBox } from '../components/feedback.tsx';
import { formatTime } from '../format.ts';
import { href } from '../router.ts';

function Target({ r }: { r: ExplainReport }) {
  const t = r.target;
  if (t.type === 'unknown')
    return (
      <p class="banner banner-info" data-testid="explain-unknown">
        {t.message}
      </p>
    );
  if (t.type === 'vendor')
    return (
      <p>
        <code>{t.id}</code> (snapshot <a href={href.snapshot(r.appliance, r.snapshot)}>#{r.snapshot}</a>) is rendered
        from {t.neutral.map((n) => `${n.type} ${n.name}`).join(', ') || 'nothing Portolan names'}.
      </p>
    );
  return (
    <>
      <p>
        <code>
          {t.host || '*'}
          {t.path}
        </code>{' '}
        in snapshot <a href={href.snapshot(r.appliance, r.snapshot)}>#{r.snapshot}</a>:
      </p>
      <ul class="plain-list">
        {t.matches.map((m) => (
          <li key={m.vs}>
            <code>{m.vs}</code>:{' '}
            {m.outcome === 'redirect'
              ? 'redirect to https'
              : m.route === null
                ? `default backend → pool ${m.pool ?? '-'}`
                : `route ${m.route.host || '*'}${m.route.path || '/'} (${m.route.match}) → pool ${m.pool ?? '-'}`}
          </li>
        ))}
      </ul>
    </>
  );
}

function LastChange({ r }: { r: ExplainReport }) {
  const c = r.lastChange;
  if (c === null) return <p>Last changed: unknown.</p>;
  return (
    <>
      <p>
        Snapshot <a href={href.snapshot(r.appliance, c.snapshot)}>#{c.snapshot}</a> at {formatTime(c.at)}
        {c.sinceFirst ? ' (unchanged since the first snapshot)' : ''}
        {c.origin === 'rollback' ? ` by an operator rollback${c.reason !== null ? `: ${c.reason}` : ''}` : ''}
        {c.applied === null
          ? ', not applied yet.'
          : `, applied by apply ${c.applied.apply} at ${formatTime(c.applied.at)} (${c.applied.status}).`}
      </p>
      {c.events.length > 0 && (
        <ul class="plain-list">
          {c.events.map((e, i) => (
            <li key={i}>
              {e.event} <code>{e.object}</code> <span class="muted">{formatTime(e.at)}</span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/** The whole answer. */
export function ExplainAnswer({ r }: { r: ExplainReport }) {
  return (
    <div data-testid="explain-answer">
      <Target r={r} />
      {r.target.type !== 'unknown' && (
        <>
          <Section title="Kubernetes objects">
            {r.objects.length === 0 ? (
              <p>None.</p>
            ) : (
              <TableBox label="Kubernetes objects">
                <thead>
                  <tr>
                    <th scope="col">Object</th>
                    <th scope="col">Role</th>
                    <th scope="col">Last event</th>
                    <th scope="col">Resource version</th>
                    <th scope="col">At</th>
                  </tr>
                </thead>
                <tbody>
                  {r.objects.map((o) => (
                    <tr key={o.object}>
                      <td>
                        <code>{o.object}</code>
                      </td>
                      <td>{o.role}</td>
                      <td>{o.event ?? '(not archived)'}</td>
                      <td>{o.resourceVersion ?? '-'}</td>
                      <td>{formatTime(o.at)}</td>
                    </tr>
                  ))}
                </tbody>
              </TableBox>
            )}
          </Section>
          {r.conditions.length > 0 && (
            <Section title="Conditions">
              <ul class="plain-list">
                {r.conditions.map((c, i) => (
                  <li key={i}>
                    <code>{c.object}</code> {c.type} {c.reason}: {c.message}
                  </li>
                ))}
              </ul>
            </Section>
          )}
          <Section title="Last changed">
            <LastChange r={r} />
          </Section>
        </>
      )}
    </div>
  );
}
