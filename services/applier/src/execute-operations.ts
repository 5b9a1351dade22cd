import type {
  ApplianceDriver,
  ExecutionContext,
  Operation,
  OperationOutcome,
  OperationResult,
  SecretResolver,
} from '@portolan/appliance-driver';
import type { Leadership } from '@portolan/leadership';

/**
 * Sends operations in order under a leadership term: in one batch where the driver offers `executeAll`, else one
 * by one. A failure of one does not stop the others; losing leadership stops sending; a driver that throws
 * yields a retryable failed result, never an exception.
 */
export async function executeOperations(
  driver: ApplianceDriver<unknown>,
  leadership: Leadership,
  secrets: SecretResolver,
  operations: readonly Operation[],
  phase?: (name: string) => void,
  writeGate?: Promise<boolean>,
): Promise<OperationOutcome[]> {
  const context: ExecutionContext = {
    epoch: leadership.epoch,
    secrets,
    signal: leadership.signal,
    ...(phase === undefined ? {} : { phase }),
    ...(writeGate === undefined ? {} : { writeGate }),
  };
  if (driver.executeAll !== undefined) {
    if (!leadership.isValid()) return [];
    const t0 = performance.now();
    const results = await driver.executeAll(operations, context).catch((e: unknown) => operations.map(() => thrown(e)));
    const each = (performance.now() - t0) / Math.max(1, results.length);
    return results.map((result, i) => ({ operation: operations[i]!, result, durationMs: each }));
  }
  const outcomes: OperationOutcome[] = [];
  for (const operation of operations) {
    if (!leadership.isValid()) break;
    const t0 = performance.now();
    const result = await driver.execute(operation, context).catch((e: unknown) => thrown(e));
    outcomes.push({ operation, result, durationMs: performance.now() - t0 });
  }
  return outcomes;
}

function thrown(e: unknown): OperationResult {
  return { ok: false, code: 'DRIVER_THREW', message: e instanceof Error ? e.message : String(e), retryable: true };
}
