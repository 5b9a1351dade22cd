// The API's answers as the UI reads them: minimal mirrors of the audit's report types (packages/audit/src/core),
// with dates as the ISO strings JSON carries. Only the fields the pages show are declared.

/** Who is signed in. */
export interface Session {
  readonly name: string;
  readonly role: 'viewer' | 'operator';
  readonly via: string;
}

/** One cluster's watch freshness (StatusReport.clusters). */
export interface ClusterStatus {
  readonly cluster: string;
  readonly lastHeartbeat: string | null;
  readonly ageSeconds: number | null;
  readonly synced: boolean | null;
  readonly watcher: string | null;
  readonly stale: boolean;
}

/** One appliance as the status report sees it: leader, epoch and lag. */
export interface ApplianceStatus {
  readonly appliance: string;
  readonly driver: string;
  readonly group: string;
  readonly leader: string | null;
  readonly epoch: number | null;
  readonly lastAppliedSnapshot: string | null;
  readonly lag: { readonly snapshots: number; readonly oldestAgeSeconds: number | null };
  readonly pinnedTo: string | null;
}

/** A removal the safety rule holds. */
export interface HoldStatus {
  readonly cluster: string;
  readonly kind: string;
  readonly object: string;
  readonly since: string;
  readonly reason: string;
  readonly appliances: readonly string[];
}

/** GET /status. */
export interface StatusReport {
  readonly at: string;
  readonly clusters: readonly ClusterStatus[];
  readonly appliances: readonly ApplianceStatus[];
  readonly stream: { readonly stream: string; readonly lastSeq: number | null; readonly error: string | null };
  readonly holds: readonly HoldStatus[];
  readonly problems: readonly string[];
  readonly planner?: { readonly position: number | null; readonly lag: number | null };
  readonly storeError?: string | null;
}

/** One appliance of GET /appliances. */
export interface ApplianceSummary {
  readonly name: string;
  readonly driver: string;
  readonly clusters: readonly string[];
  readonly head: {
    readonly id: string;
    readonly createdAt: string;
    readonly origin: string;
    readonly held: boolean;
    readonly holdReason: string | null;
  } | null;
  readonly pin: {
    readonly snapshotId: string;
    readonly reason: string | null;
    readonly since: string;
    readonly actor: string | null;
  } | null;
  readonly lastApply: {
    readonly id: string;
    readonly status: string;
    readonly finishedAt: string;
    readonly snapshotId: string;
  } | null;
}

/** One apply of GET /appliances/{name}/metrics. */
export interface ApplyPoint {
  readonly at: string;
  readonly snapshotId: string;
  readonly status: string;
  readonly trigger: string;
  readonly durationMs: number;
  readonly lagMs: number | null;
}

/** The Kubernetes changes a snapshot folded (HistoryReport's SnapshotCause). */
export interface SnapshotCause {
  readonly fromSeq: number;
  readonly toSeq: number;
  readonly events: number;
  readonly filtered: boolean;
  readonly objects: readonly {
    readonly object: string;
    readonly resourceVersion: string;
    readonly event: string;
    readonly seq: number;
  }[];
}

/** A snapshot in the history. */
export interface SnapshotEntry {
  readonly type: 'snapshot';
  readonly at: string;
  readonly id: string;
  readonly parent: string | null;
  readonly origin: string;
  readonly held: boolean;
  readonly holdReason: string | null;
  readonly reason: string | null;
  readonly contentHash: string;
  readonly cause: SnapshotCause;
}

/** An apply in the history. */
export interface ApplyEntry {
  readonly type: 'apply';
  readonly at: string;
  readonly id: string;
  readonly snapshot: string;
  readonly epoch: number;
  readonly leader: string;
  readonly trigger: string;
  readonly status: string;
  readonly operations: number;
  readonly failed: number;
  readonly reason: string | null;
  readonly startedAt: string;
  readonly rollbackReason: string | null;
}

/** An operator's approve, rollback or resume in the history. */
export interface OperatorEntry {
  readonly type: 'approval' | 'rollback' | 'resume';
  readonly at: string;
  readonly id: string;
  readonly actor: string;
  readonly reason: string;
  readonly snapshot: string | null;
  readonly resultSnapshot: string | null;
  readonly approvalSeq: number | null;
}

/** One line of an appliance's history. */
export type HistoryEntry =
  | SnapshotEntry
  | ApplyEntry
  | OperatorEntry
  | {
      readonly type: 'drift';
      readonly at: string;
      readonly id: string;
      readonly snapshot: string | null;
      readonly objects: readonly string[];
      readonly action: string;
    }
  | {
      readonly type: 'hold';
      readonly at: string;
      readonly id: string;
      readonly object: string;
      readonly reason: string;
    }
  | {
      readonly type: 'release';
      readonly at: string;
      readonly id: string;
      readonly object: string;
      readonly by: string | null;
      readonly reason: string;
      readonly removed: boolean | null;
    };

/** GET /appliances/{name}/history: entries oldest first. */
export interface HistoryReport {
  readonly appliance: string;
  readonly entries: readonly HistoryEntry[];
}

/** A snapshot's identity as reports show it. */
export interface SnapshotHeader {
  readonly id: string;
  readonly appliance: string;
  readonly createdAt: string;
  readonly contentHash: string;
  readonly parent: string | null;
  readonly origin: string;
  readonly reason: string | null;
  readonly held: boolean;
  readonly holdReason: string | null;
  readonly lastEventSeq: number;
  readonly plannerVersion: string;
}

/** An operation as reports list it. */
export interface OperationView {
  readonly action: string;
  readonly objectType: string;
  readonly objectName: string;
  readonly summary: string;
}

/** One object-level difference between two desired states. */
export interface ObjectDifference {
  readonly change: 'added' | 'removed' | 'changed';
  readonly key: string;
  readonly kind: string;
  readonly before: string;
  readonly after: string;
  readonly sources: readonly string[];
}

/** GET /diff. */
export interface DiffReport {
  readonly from: SnapshotHeader;
  readonly to: SnapshotHeader;
  readonly objects: readonly ObjectDifference[];
  readonly operations: readonly OperationView[] | null;
  readonly note: string | null;
}

/** A Kubernetes object reference. */
export interface ObjectRef {
  readonly cluster: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

/** The parts of a desired state the snapshot page lists. */
export interface DesiredState {
  readonly driver: string;
  readonly virtualServices: readonly {
    readonly name: string;
    readonly port: number;
    readonly protocol: string;
    readonly routes: readonly { readonly host: string; readonly path: string }[];
  }[];
  readonly pools: readonly { readonly name: string; readonly members: readonly unknown[] }[];
  readonly certificates: readonly { readonly name: string; readonly hosts: readonly string[] }[];
  readonly conditions: readonly {
    readonly object: ObjectRef;
    readonly type: string;
    readonly reason: string;
    readonly message: string;
  }[];
}

/** A vendor object: its id and a one-line detail. */
export interface VendorObject {
  readonly id: string;
  readonly detail: string;
}

/** GET /snapshots/{id}?vendor=true. */
export interface ShowReport {
  readonly snapshot: SnapshotHeader;
  readonly desired: DesiredState;
  readonly vendor: readonly VendorObject[] | null;
}
