import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type Database, type Kysely } from '@portolan/store';

/** One thing that happened, as the events stream sends it. */
export interface LiveEvent {
  readonly type: 'snapshot' | 'apply' | 'drift' | 'hold' | 'action';
  readonly data: Readonly<Record<string, string | boolean | null>>;
}

type Listener = (events: readonly LiveEvent[]) => void;

/** Where each table was read up to. */
interface Cursors {
  snapshot: string;
  apply: string;
  drift: string;
  hold: string;
  action: string;
}

/**
 * New snapshots, applies, drift, holds and operator actions, read from the store by id and sent to every listener.
 * The store is the only source (every replica of the console sees the same), polled while anyone listens; one poll
 * serves all listeners.
 */
export class LiveFeed {
  readonly #db: Kysely<Database>;
  readonly #intervalMs: number;
  readonly #listeners = new Set<Listener>();
  #running: Promise<void> | null = null;
  onError: (e: unknown) => void = () => {};

  constructor(db: Kysely<Database>, options: { intervalMs?: number } = {}) {
    this.#db = db;
    this.#intervalMs = options.intervalMs ?? 500;
  }

  /** Listens until the returned function is called. */
  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    if (this.#running === null) this.#running = this.#run().finally(() => (this.#running = null));
    return () => void this.#listeners.delete(listener);
  }

  async #run(): Promise<void> {
    let cursors = await this.#newest();
    while (this.#listeners.size > 0) {
      await sleep(this.#intervalMs);
      try {
        const { events, next } = await this.#since(cursors);
        cursors = next;
        if (events.length > 0) for (const l of [...this.#listeners]) l(events);
      } catch (e) {
        // A store outage pauses the stream; the next poll picks up where this one stopped.
        this.onError(e);
      }
    }
  }

  async #newest(): Promise<Cursors> {
    const { rows } = await sql<Cursors>`SELECT
      (SELECT coalesce(max(id), 0) FROM snapshots)::text AS snapshot,
      (SELECT coalesce(max(id), 0) FROM applies)::text AS apply,
      (SELECT coalesce(max(id), 0) FROM drift_observations)::text AS drift,
      (SELECT coalesce(max(id), 0) FROM removal_holds)::text AS hold,
      (SELECT coalesce(max(id), 0) FROM operator_actions)::text AS action`.execute(this.#db);
    return rows[0]!;
  }

  async #since(c: Cursors): Promise<{ events: LiveEvent[]; next: Cursors }> {
    const { rows } = await sql<{
      type: LiveEvent['type'];
      id: string;
      a: string | null;
      b: string | null;
      c: string | null;
      d: string | null;
      at: Date;
    }>`
      (SELECT 'snapshot' AS type, id::text, appliance AS a, origin AS b, held::text AS c, NULL AS d, created_at AS at
        FROM snapshots WHERE id > ${c.snapshot} ORDER BY id LIMIT 500)
      UNION ALL
      (SELECT 'apply', id::text, appliance, snapshot_id::text, status, trigger, finished_at
        FROM applies WHERE id > ${c.apply} ORDER BY id LIMIT 500)
      UNION ALL
      (SELECT 'drift', id::text, appliance, action, NULL, NULL, observed_at
        FROM drift_observations WHERE id > ${c.drift} ORDER BY id LIMIT 500)
      UNION ALL
      (SELECT 'hold', id::text, cluster, kind, object_key, NULL, held_at
        FROM removal_holds WHERE id > ${c.hold} ORDER BY id LIMIT 500)
      UNION ALL
      (SELECT 'action', id::text, appliance, action, actor, reason, at
        FROM operator_actions WHERE id > ${c.action} ORDER BY id LIMIT 500)`.execute(this.#db);
    const next = { ...c };
    const events = rows.map((r) => {
      if (BigInt(r.id) > BigInt(next[r.type])) next[r.type] = r.id;
      return liveEvent(r.type, r.id, r.a, r.b, r.c, r.d, r.at);
    });
    return { events, next };
  }
}

/** The event for one row of the union above. */
function liveEvent(
  type: LiveEvent['type'],
  id: string,
  a: string | null,
  b: string | null,
  c: string | null,
  d: string | null,
  at: Date,
): LiveEvent {
  const when = at.toISOString();
  switch (type) {
    case 'snapshot':
      return { type, data: { appliance: a, id, origin: b, held: c === 'true', at: when } };
    case 'apply':
      return { type, data: { appliance: a, id, snapshotId: b, status: c, trigger: d, at: when } };
    case 'drift':
      return { type, data: { appliance: a, id, action: b, at: when } };
    case 'hold':
      return { type, data: { cluster: a, id, kind: b, object: c, at: when } };
    case 'action':
      return { type, data: { appliance: a, id, action: b, actor: c, reason: d, at: when } };
  }
}
