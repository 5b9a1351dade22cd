import { errorCode, errorMessage } from '@portolan/errors';
import type { ExecutionContext } from './driver.ts';
import type { Operation, OperationResult } from './operation.ts';

/**
 * `executeAll` for drivers without batch execution: the operations one after the other, in order. A throw (a bug,
 * a Secret that cannot be opened) becomes that operation's failed result with the error's code, so one bad operation
 * does not hide the outcomes of the others.
 */
export async function executeInTurn<Vendor>(
  execute: (operation: Operation, context: ExecutionContext<Vendor>) => Promise<OperationResult>,
  operations: readonly Operation[],
  context: ExecutionContext<Vendor>,
): Promise<readonly OperationResult[]> {
  const results: OperationResult[] = [];
  for (const operation of operations) {
    results.push(
      await execute(operation, context).catch((e: unknown): OperationResult => ({
        ok: false,
        code: errorCode(e) ?? 'DRIVER_THREW',
        message: errorMessage(e),
        retryable: false,
      })),
    );
  }
  return results;
}
