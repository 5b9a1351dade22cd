// What an Applier is wired with and what its cycles return.
import type { ApplianceDriver, SecretResolver } from '@portolan/appliance-driver';
import type { Tracer } from '@portolan/telemetry';
import type { Leadership } from '@portolan/leadership';
import type { ApplierBus } from './adapters/bus-adapter.ts';
import type { KubeWriteback } from './adapters/kube-writeback.ts';
import type { ApplierMetrics } from './applier-metrics.ts';
import type { ApplyLog } from './core/apply-log.ts';
import type { ApplyStatus } from './core/apply-outcome.ts';
import type { SnapshotStore } from './core/snapshot-store.ts';
import type { DriftPolicy, DriftReport } from './core/drift-report.ts';
import type { RetryPolicy } from './core/retry-schedule.ts';

/** The minimal logger the applier needs (pino's Logger fits). */
export interface ApplierLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** A logger that drops every line (an Applier built without one). */
export const silentLogger: ApplierLogger = { info: () => {}, warn: () => {}, error: () => {} };

/** Everything an Applier is wired with (main.ts builds the real ones; tests pass fakes for the appliance only). */
export interface ApplierOptions {
  readonly appliance: string;
  readonly replicaId: string;
  readonly driver: ApplianceDriver<unknown>;
  readonly snapshots: SnapshotStore;
  readonly log: ApplyLog;
  /** The current leadership term that may act, or null (LeaderElector.current). */
  readonly leadership: () => Leadership | null;
  readonly secrets: SecretResolver;
  readonly drift: { readonly intervalMs: number; readonly policy: DriftPolicy };
  readonly bus?: ApplierBus | null;
  readonly writeback?: KubeWriteback | null;
  /** Address written into Ingress status for listeners on the profile's default address. */
  readonly defaultAddress?: string | null;
  readonly retry?: RetryPolicy;
  /** Head poll period: the backstop when a plan.<appliance> message is missed. */
  readonly pollMs?: number;
  /**
   * The quiet spell a follower waits for after snapshot notifications before decoding the newest (default 250 ms;
   * a steady stream of changes still gets a catch-up every forty delays). A follower only keeps its view warm for a
   * takeover: doing it at once would compete with the leader for the same cores while the leader applies.
   */
  readonly followerDelayMs?: number;
  /**
   * How long the appliance must be quiet after an apply left a provisional render (HAProxy: new pools served from
   * spare backends) before the tidy render is applied (default 2000 ms; steady churn waits ten delays at most).
   */
  readonly tidyDelayMs?: number;
  readonly metrics?: ApplierMetrics | null;
  readonly logger?: ApplierLogger;
  /** Where cycle and appliance-call spans go (default: the global tracer, a no-op unless tracing was started). */
  readonly tracer?: Tracer;
  readonly random?: () => number;
}

/** What one apply cycle did. */
export type CycleResult =
  | { readonly kind: 'idle' }
  | { readonly kind: 'follower'; readonly snapshotId: string }
  | { readonly kind: 'in-sync'; readonly snapshotId: string; readonly pending: number }
  | {
      readonly kind: 'applied';
      readonly snapshotId: string;
      readonly status: ApplyStatus;
      readonly applyId: string;
      readonly operations: number;
      readonly failed: number;
      readonly retryInMs: number | null;
    };

/** What one drift check found. */
export type DriftCheckResult =
  | { readonly kind: 'follower' | 'no-baseline' | 'clean' | 'superseded' }
  | {
      readonly kind: 'drift';
      readonly report: DriftReport;
      readonly action: 'corrected' | 'reported';
      readonly observationId: string;
    };
