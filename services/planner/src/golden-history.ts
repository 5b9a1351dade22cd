import { gunzipSync, gzipSync } from 'node:zlib';
import type { Kysely } from 'kysely';
import type { Database } from '@portolan/store';
import { decodeBusMessage } from './core/world/decode-bus-message.ts';
import { Planner, PLANNER_VERSION, type PlannerConfig } from './core/planner.ts';
import { foldInput } from './core/fold-input.ts';

/**
 * A recorded history: the kube-stream messages a pipeline archived, the fleet config it planned with, and every
 * snapshot hash the planner committed. Replaying it through today's planner must give the same hashes, so any
 * change to planning output is a deliberate, reviewed one (re-recorded with the change that causes it).
 */
export interface GoldenHistory {
  readonly name: string;
  readonly plannerVersion: string;
  readonly config: PlannerConfig;
  readonly events: readonly { readonly seq: number; readonly subject: string; readonly payload: string }[];
  readonly snapshots: readonly {
    readonly appliance: string;
    readonly lastEventSeq: number;
    readonly contentHash: string;
  }[];
}

/** A snapshot the replay did not reproduce. */
export interface GoldenMismatch {
  readonly appliance: string;
  readonly lastEventSeq: number;
  readonly recorded: string;
  readonly replayed: string | null;
}

/** Folds the history's messages through a fresh planner and compares every recorded snapshot hash at its position. */
export function replayGoldenHistory(history: GoldenHistory): GoldenMismatch[] {
  const planner = new Planner(history.config);
  const roots = new Map<string, string>();
  const heartbeats = new Map<string, number>();
  const snapshots = [...history.snapshots].sort((a, b) => a.lastEventSeq - b.lastEventSeq);
  const mismatches: GoldenMismatch[] = [];
  let next = 0;
  const checkUpTo = (seq: number): void => {
    for (const p of planner.planDirty()) roots.set(p.appliance, p.root);
    for (; next < snapshots.length && snapshots[next]!.lastEventSeq <= seq; next++) {
      const s = snapshots[next]!;
      const replayed = roots.get(s.appliance) ?? null;
      if (replayed !== s.contentHash)
        mismatches.push({ appliance: s.appliance, lastEventSeq: s.lastEventSeq, recorded: s.contentHash, replayed });
    }
  };
  for (const e of history.events) {
    if (next < snapshots.length && snapshots[next]!.lastEventSeq < e.seq) checkUpTo(e.seq - 1);
    foldInput(planner, decodeBusMessage(e.subject, Buffer.from(e.payload, 'base64')), heartbeats);
  }
  checkUpTo(Number.MAX_SAFE_INTEGER);
  return mismatches;
}

/** Reads a pipeline's archive and planner-made snapshots from its database as a golden history. */
export async function recordGoldenHistory(
  db: Kysely<Database>,
  name: string,
  config: PlannerConfig,
): Promise<GoldenHistory> {
  const events = await db.selectFrom('events').select(['seq', 'subject', 'payload']).orderBy('seq').execute();
  const snapshots = await db
    .selectFrom('snapshots')
    .select(['appliance', 'last_event_seq', 'content_hash'])
    .where('origin', '=', 'plan')
    .orderBy('id')
    .execute();
  return {
    name,
    plannerVersion: PLANNER_VERSION,
    config: scrubPaths({ clusters: config.clusters, appliances: config.appliances }),
    events: events.map((e) => ({
      seq: Number(e.seq),
      subject: e.subject,
      payload: Buffer.from(e.payload).toString('base64'),
    })),
    snapshots: snapshots.map((s) => ({
      appliance: s.appliance,
      lastEventSeq: Number(s.last_event_seq),
      contentHash: s.content_hash,
    })),
  };
}

/** The gzip-compressed JSON form kept in the repository. */
export function encodeGoldenHistory(h: GoldenHistory): Buffer {
  return gzipSync(JSON.stringify(h), { level: 9 });
}

/** Reads the repository form back. */
export function decodeGoldenHistory(bytes: Uint8Array): GoldenHistory {
  return JSON.parse(gunzipSync(bytes).toString('utf8')) as GoldenHistory;
}

/** The config with every absolute file path (config folders, sockets, credential files) replaced: planning reads none. */
function scrubPaths<T>(value: T): T {
  return JSON.parse(
    JSON.stringify(value, (_k, v: unknown) => (typeof v === 'string' && v.startsWith('/') ? '/recorded' : v)),
  ) as T;
}
