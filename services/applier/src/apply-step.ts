import type { Operation, OperationOutcome } from '@portolan/appliance-driver';
import { StaleEpochError, type Leadership } from '@portolan/leadership';
import type { ApplierLogger, ApplierOptions } from './applier-options.ts';
import type { ApplyRecordInput, RecordedApply } from './core/apply-log.ts';
import type { ApplyTrigger, SnapshotHeader } from './core/apply-target.ts';
import { recordedTrigger } from './core/cycle-decisions.ts';
import type { ApplySummary } from './core/apply-outcome.ts';
import type { CyclePhases } from './core/cycle-phases.ts';
import type { CycleTrace } from './cycle-trace.ts';
import type { LoadedSnapshot } from './core/snapshot-store.ts';
import { executeOperations } from './execute-operations.ts';
import { isAppliedStatus } from './core/apply-outcome.ts';
import type { RefusedObjectsReporter } from './report-refused-objects.ts';

/** One cycle's render and what it was diffed against, as the apply step needs them. */
export interface Converging {
  readonly leadership: Leadership;
  readonly snapshot: LoadedSnapshot;
  readonly operations: readonly Operation[];
  readonly observed: unknown;
  readonly rendered: unknown;
  readonly trigger: ApplyTrigger;
  readonly phases: CyclePhases;
  readonly staleEpoch: Promise<boolean> | null;
  readonly spans: CycleTrace;
}

/** Whether a newer epoch exists than this term's (true), it is current (false); store failures reject. */
export function isEpochStale(term: Leadership): Promise<boolean> {
  return term.assertEpochCurrent().then(
    () => false,
    (e: unknown) => (e instanceof StaleEpochError ? true : Promise.reject(e)),
  );
}

/** What one send came to: the outcomes of the operations sent, and whether the fence stopped it. */
export interface Sent {
  readonly outcomes: OperationOutcome[];
  readonly fenced: boolean;
}

/** What a send is for: the render, the snapshot, the cycle's clock and spans, and the epoch check under way. */
export interface SendRequest {
  readonly target: unknown;
  readonly snapshotId: string;
  readonly phases: CyclePhases;
  readonly staleEpoch: Promise<boolean> | null;
  readonly trace?: CycleTrace;
}

/**
 * Sends the operations under the epoch check. A driver that accepts a write gate starts at once (it reads its own
 * fence, which worker runs, while the check is in flight) and writes only once the check says yes; any other
 * driver is started only after the check. A stale epoch sends nothing, and what a gated driver did is dropped.
 */
export async function sendUnderEpoch(
  o: ApplierOptions,
  leadership: Leadership,
  operations: readonly Operation[],
  r: SendRequest,
): Promise<Sent> {
  if (operations.length === 0) return { outcomes: [], fenced: false };
  const stale = r.staleEpoch ?? isEpochStale(leadership);
  const send = {
    target: r.target,
    snapshotId: r.snapshotId,
    phase: (name: string): void => r.phases.mark(`send:${name}`),
    ...(r.trace === undefined ? {} : { trace: r.trace }),
  };
  if (o.driver.capabilities.acceptsWriteGate) {
    r.phases.mark('epoch');
    const writeGate = stale.then((s) => !s);
    const outcomes = await executeOperations(o.driver, leadership, o.secrets, operations, { ...send, writeGate });
    const fenced = await stale;
    return { outcomes: fenced ? [] : outcomes, fenced };
  }
  const fenced = await stale;
  r.phases.mark('epoch');
  if (fenced) return { outcomes: [], fenced };
  return { outcomes: await executeOperations(o.driver, leadership, o.secrets, operations, send), fenced };
}

/** Ingress status and Events after an apply, and the search for refused objects after a refusal. */
export async function followUpApply(
  o: ApplierOptions,
  logger: ApplierLogger,
  refusals: RefusedObjectsReporter,
  r: { readonly recorded: RecordedApply; readonly snapshot: LoadedSnapshot; readonly outcomes: OperationOutcome[] },
): Promise<void> {
  const { recorded, snapshot, outcomes } = r;
  if (isAppliedStatus(recorded.status)) o.writeback?.afterApply(snapshot.desired, o.defaultAddress ?? null, outcomes);
  else if (recorded.status === 'failed') o.writeback?.reportRefusals(snapshot.desired, outcomes);
  if (recorded.status === 'failed' || recorded.status === 'partial') {
    await refusals
      .afterApply(snapshot.id, snapshot.desired, outcomes)
      // The search is defence in depth: the apply is recorded and retried whether or not it finds the culprits.
      .catch((e: unknown) => logger.warn({ err: e }, 'finding the refused objects failed'));
  }
}

/** What a recorded apply is reported with. */
export interface RecordedReport {
  readonly recorded: RecordedApply;
  readonly snapshot: LoadedSnapshot;
  readonly epoch: number;
  readonly summary: ApplySummary;
  readonly outcomes: readonly OperationOutcome[];
  readonly operations: number;
  readonly startedAt: Date;
}

/** Metrics, the log line about failed operations, and ApplyRecorded on the bus (a publish failure is only logged). */
export async function announceApply(o: ApplierOptions, logger: ApplierLogger, r: RecordedReport): Promise<void> {
  const { recorded, snapshot, summary, outcomes } = r;
  for (const outcome of outcomes) o.metrics?.operations.inc({ result: outcome.result.ok ? 'ok' : 'failed' });
  const refused = outcomes
    .filter((x) => !x.result.ok)
    .slice(0, 5)
    .map((x) => ({
      object: `${x.operation.objectType}/${x.operation.objectName}`,
      code: x.result.ok ? '' : x.result.code,
      message: x.result.ok ? '' : x.result.message.slice(0, 500),
    }));
  if (refused.length > 0) logger.warn({ snapshot: snapshot.id, failed: summary.failed, refused }, 'operations failed');
  o.metrics?.applies.inc({ status: recorded.status });
  if (recorded.status === 'fenced') {
    logger.warn({ epoch: r.epoch, snapshot: snapshot.id }, 'apply fenced: a newer epoch exists, nothing further sent');
  } else {
    o.metrics?.lastApplyTimestamp.set(recorded.finishedAt.getTime() / 1000);
    // Partial counts as an apply, not a success: the alert on failing applies reads this one.
    if (recorded.status === 'succeeded' || recorded.status === 'noop')
      o.metrics?.lastSuccessTimestamp.set(recorded.finishedAt.getTime() / 1000);
  }
  await o.bus
    ?.applyRecorded({
      applyId: recorded.id,
      snapshotId: snapshot.id,
      contentHash: snapshot.hash,
      epoch: r.epoch,
      leaderId: o.replicaId,
      status: recorded.status,
      operations: r.operations,
      failedOperations: summary.failed,
      durationMs: Math.max(0, recorded.finishedAt.getTime() - r.startedAt.getTime()),
      finishedAt: recorded.finishedAt,
    })
    // Best effort: the record in Postgres is the truth, the message only saves a reader a poll.
    .catch((e: unknown) => logger.warn({ err: e }, 'publishing ApplyRecorded failed'));
}

/** Where a recorded apply's time went: one histogram sample per phase, and the log line. */
export function logPhases(
  o: ApplierOptions,
  logger: ApplierLogger,
  recorded: RecordedApply,
  operations: number,
  phases: CyclePhases,
): void {
  for (const [phase, seconds] of phases.seconds()) o.metrics?.cyclePhases.observe({ phase }, seconds);
  logger.info(
    {
      snapshot: recorded.snapshotId,
      status: recorded.status,
      operations,
      ms: phases.toObject(),
      totalMs: Math.round(phases.totalMs * 10) / 10,
    },
    'apply recorded',
  );
}

/** The parts of an apply record that are known before sending. */
export function recordBeforeSending(
  o: ApplierOptions,
  c: Converging,
  startedAt: Date,
): Omit<ApplyRecordInput, 'status' | 'outcomes' | 'observedAfter' | 'reason'> {
  return {
    appliance: o.appliance,
    snapshotId: c.snapshot.id,
    epoch: c.leadership.epoch,
    leaderId: o.replicaId,
    trigger: recordedTrigger(c.trigger, c.snapshot.origin),
    operations: c.operations,
    startedAt,
    finishedAt: new Date(),
    traceId: c.spans.traceId,
  };
}

/** The record of a head a rollback pin holds: nothing sent, the pin's reason. */
export function holdRecord(o: ApplierOptions, epoch: number, head: SnapshotHeader): ApplyRecordInput {
  const now = new Date();
  return {
    appliance: o.appliance,
    snapshotId: head.id,
    epoch,
    leaderId: o.replicaId,
    trigger: 'hold',
    status: 'held',
    operations: [],
    outcomes: [],
    observedAfter: null,
    reason: head.holdReason,
    startedAt: now,
    finishedAt: now,
    traceId: null,
  };
}

/** Records a head a rollback pin holds, under the current term; true when it is now recorded as held. */
export async function recordHeldHead(o: ApplierOptions, logger: ApplierLogger, head: SnapshotHeader): Promise<boolean> {
  const leadership = o.leadership();
  if (leadership === null) return false;
  const recorded = await o.log.recordApply(holdRecord(o, leadership.epoch, head), leadership);
  logger.warn({ snapshot: head.id, reason: head.holdReason }, 'snapshot held by a rollback pin: not applied');
  return recorded.status === 'held';
}
