import type { DesiredState } from '@portolan/desired-state';
import type { SnapshotHeader } from './apply-target.ts';

/** A decoded snapshot. */
export interface LoadedSnapshot extends SnapshotHeader {
  readonly desired: DesiredState;
  readonly createdAt: Date;
  /** 'plan' for planner output, 'rollback' for an operator's rollback target. */
  readonly origin: string;
  /** The operator's reason, for rollback snapshots. */
  readonly reason?: string | null;
}

/** A planner snapshot as SnapshotCommitted announces it (committed before it was announced). */
export interface AnnouncedSnapshot {
  readonly id: string;
  readonly hash: string;
  readonly held: boolean;
  readonly createdAt: Date;
  /** The trace headers of the announcement (the planner's commit span), when it carried any. */
  readonly traceContext?: Readonly<Record<string, string>> | null;
}

/** Where the applier reads snapshots from (Postgres in production: PgSnapshotSource; the planner writes them). */
export interface SnapshotStore {
  /** The appliance's head snapshot, or null before the first plan; `fresh` asks the store even after an announcement. */
  head(appliance: string, options?: { readonly fresh?: boolean }): Promise<SnapshotHeader | null>;
  /** One snapshot, decoded. */
  get(id: string): Promise<LoadedSnapshot>;
  /** Pieces announced with a new snapshot (unverified hints: the reader checks each against its id). */
  offer?(pieces: ReadonlyMap<string, Uint8Array>): void;
  /** A planner snapshot announced on the bus: the next `head` may answer with it. */
  offerHead?(announced: AnnouncedSnapshot): void;
  /** Creation time of the oldest snapshot newer than `afterId` that is not held (null: none). */
  oldestUnappliedAt(appliance: string, afterId: string | null): Promise<Date | null>;
}
