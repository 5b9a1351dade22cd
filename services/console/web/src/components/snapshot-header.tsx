// A snapshot's identity as a definition list: when, origin, hold, hash, parent, events folded.
import type { SnapshotHeader } from '../api/types.ts';
import { formatTime } from '../format.ts';
import { href } from '../router.ts';
import { Badge } from './feedback.tsx';

/** The header of a snapshot. */
export function SnapshotHeaderList({ h }: { h: SnapshotHeader }) {
  return (
    <dl class="summary" data-testid="snapshot-header" data-snapshot-id={h.id}>
      <div>
        <dt>Created</dt>
        <dd>{formatTime(h.createdAt)}</dd>
      </div>
      <div>
        <dt>Origin</dt>
        <dd>
          {h.origin === 'rollback' ? <Badge>rollback</Badge> : h.origin}
          {h.reason !== null && <> — {h.reason}</>}
        </dd>
      </div>
      <div>
        <dt>Held</dt>
        <dd>
          {h.held ? (
            <>
              <Badge>held</Badge> {h.holdReason ?? ''}
            </>
          ) : (
            'no'
          )}
        </dd>
      </div>
      <div>
        <dt>Parent</dt>
        <dd>
          {h.parent === null ? 'none (first snapshot)' : <a href={href.snapshot(h.appliance, h.parent)}>#{h.parent}</a>}
        </dd>
      </div>
      <div>
        <dt>Content hash</dt>
        <dd>
          <code title={h.contentHash}>{h.contentHash.slice(0, 16)}</code>
        </dd>
      </div>
      <div>
        <dt>Events folded up to</dt>
        <dd>sequence {h.lastEventSeq}</dd>
      </div>
    </dl>
  );
}
