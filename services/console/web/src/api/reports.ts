// The remaining report shapes: operations, explain, at, and the answers of the writes.
import type { OperationView, SnapshotHeader, VendorObject } from './types.ts';

/** GET …/applies/{id}/operations. */
export interface OperationsReport {
  readonly appliance: string;
  readonly apply: {
    readonly id: string;
    readonly snapshotId: string;
    readonly epoch: number;
    readonly leaderId: string;
    readonly trigger: string;
    readonly status: string;
    readonly reason: string | null;
    readonly startedAt: string;
    readonly finishedAt: string;
  };
  readonly operations: readonly (OperationView & {
    readonly result: 'ok' | 'failed' | 'not sent';
    readonly error: string | null;
    readonly durationMs: number | null;
    readonly payload: unknown;
  })[];
}

/** How one virtual service treats an explained request. */
export interface RequestMatch {
  readonly vs: string;
  readonly route: { readonly host: string; readonly path: string; readonly match: string } | null;
  readonly pool: string | null;
  readonly outcome: 'pool' | 'redirect' | 'not-found';
}

/** What `explain` resolved the query to. */
export type ExplainTarget =
  | {
      readonly type: 'vendor';
      readonly id: string;
      readonly neutral: readonly { readonly type: string; readonly name: string }[];
    }
  | { readonly type: 'route'; readonly host: string; readonly path: string; readonly matches: readonly RequestMatch[] }
  | { readonly type: 'unknown'; readonly message: string };

/** GET …/explain. */
export interface ExplainReport {
  readonly appliance: string;
  readonly snapshot: string;
  readonly query: string;
  readonly target: ExplainTarget;
  readonly objects: readonly {
    readonly object: string;
    readonly role: string;
    readonly resourceVersion: string | null;
    readonly event: string | null;
    readonly seq: number | null;
    readonly at: string | null;
  }[];
  readonly lastChange: {
    readonly snapshot: string;
    readonly at: string;
    readonly origin: string;
    readonly reason: string | null;
    readonly sinceFirst: boolean;
    readonly events: readonly { readonly object: string; readonly event: string; readonly at: string }[];
    readonly applied: { readonly apply: string; readonly at: string; readonly status: string } | null;
  } | null;
  readonly conditions: readonly {
    readonly object: string;
    readonly type: string;
    readonly reason: string;
    readonly message: string;
  }[];
}

/** GET …/at: what the appliance held at a time. */
export interface AtReport {
  readonly appliance: string;
  readonly time: string;
  readonly apply: {
    readonly id: string;
    readonly status: string;
    readonly finishedAt: string;
    readonly epoch: number;
    readonly trigger: string;
  };
  readonly snapshot: SnapshotHeader;
  readonly objects: readonly VendorObject[];
  readonly differencesFromPlan: readonly OperationView[];
  readonly driftAfter: readonly {
    readonly id: string;
    readonly at: string;
    readonly objects: readonly string[];
    readonly action: string;
  }[];
}

/** POST …/rollback. */
export interface RollbackReport {
  readonly appliance: string;
  readonly from: SnapshotHeader;
  readonly to: SnapshotHeader;
  readonly rollbackSnapshot: string | null;
  readonly reason: string;
  readonly actor: string;
  readonly pinned: boolean;
  readonly apply: { readonly id: string; readonly status: string; readonly finishedAt: string } | null;
}

/** POST …/resume. */
export interface ResumeReport {
  readonly appliance: string;
  readonly unpinned: { readonly snapshotId: string; readonly reason: string | null; readonly since: string } | null;
  readonly released: string | null;
  readonly actor: string;
}

/** POST …/approve. */
export interface ApproveReport {
  readonly appliance: string;
  readonly actor: string;
  readonly held: readonly { readonly cluster: string; readonly kind: string; readonly object: string }[];
  readonly approval: { readonly seq: number } | null;
  readonly released: readonly { readonly cluster: string; readonly kind: string; readonly object: string }[] | null;
  readonly apply: { readonly snapshotId: string; readonly status: string; readonly afterMs: number } | null;
}
