import type {
  ApplianceDriver,
  ExecutionContext,
  Operation,
  OperationOutcome,
  OperationResult,
  SecretResolver,
} from '@portolan/appliance-driver';
import { errorMessage } from '@portolan/errors';
import type { Leadership } from '@portolan/leadership';
import { applierSpanAttributes, type CycleTrace } from './cycle-trace.ts';

/** What a send needs besides the operations. */
export interface SendOptions {
  /** The render the operations were diffed from (a runner may write from it). */
  readonly target: unknown;
  readonly phase?: (name: string) => void;
  readonly writeGate?: Promise<boolean>;
  /** The cycle's spans: each call to the appliance gets a child span. */
  readonly trace?: CycleTrace;
  /** The snapshot being applied: drivers stamp it on their writes. */
  readonly snapshotId?: string;
}

/**
 * Sends operations in order under a leadership term: in one batch where the driver's capabilities say it batches,
 * else one by one, checking the term before each. A failure of one does not stop the others; losing leadership stops
 * sending; a driver that throws yields a retryable failed result, never an exception (the apply is recorded either
 * way, and the retry schedule takes it from there).
 */
export async function executeOperations(
  driver: ApplianceDriver<unknown>,
  leadership: Leadership,
  secrets: SecretResolver,
  operations: readonly Operation[],
  options: SendOptions,
): Promise<OperationOutcome[]> {
  const context: ExecutionContext = {
    epoch: leadership.epoch,
    ...(options.snapshotId === undefined ? {} : { snapshotId: options.snapshotId }),
    secrets,
    signal: leadership.signal,
    target: options.target,
    ...(options.phase === undefined ? {} : { phase: options.phase }),
    ...(options.writeGate === undefined ? {} : { writeGate: options.writeGate }),
  };
  if (driver.capabilities.batchExecution) {
    if (!leadership.isValid()) return [];
    const t0 = performance.now();
    const executeAll = (): Promise<readonly OperationResult[]> => driver.executeAll(operations, context);
    const results = await (
      options.trace?.call('applier.execute-all', executeAll, batchAttributes(operations), failures) ?? executeAll()
    ).catch((e: unknown) => operations.map(() => thrown(e)));
    const each = (performance.now() - t0) / Math.max(1, results.length);
    return results.map((result, i) => ({ operation: operations[i]!, result, durationMs: each }));
  }
  const outcomes: OperationOutcome[] = [];
  for (const operation of operations) {
    if (!leadership.isValid()) break;
    const t0 = performance.now();
    const execute = (): Promise<OperationResult> => driver.execute(operation, context);
    const result = await (
      options.trace?.call('applier.execute', execute, operationAttributes(operation), refusal) ?? execute()
    ).catch((e: unknown) => thrown(e));
    outcomes.push({ operation, result, durationMs: performance.now() - t0 });
  }
  return outcomes;
}

function operationAttributes(o: Operation): Record<string, string> {
  return { [applierSpanAttributes.operation]: `${o.action} ${o.objectType}/${o.objectName}` };
}

function batchAttributes(operations: readonly Operation[]): Record<string, number> {
  return { [applierSpanAttributes.operations]: operations.length };
}

function refusal(r: OperationResult): string | null {
  return r.ok ? null : `${r.code}: ${r.message.slice(0, 200)}`;
}

function failures(results: readonly OperationResult[]): string | null {
  const failed = results.filter((r) => !r.ok).length;
  return failed === 0 ? null : `${failed} of ${results.length} operations failed`;
}

function thrown(e: unknown): OperationResult {
  return { ok: false, code: 'DRIVER_THREW', message: errorMessage(e), retryable: true };
}
