import type { ExecutionContext, Operation, OperationResult, TlsMaterial } from '@portolan/appliance-driver';
import type { DesiredState, ObjectRef } from '@portolan/desired-state';
import type { LoadMasterDriver } from '../loadmaster-driver.ts';

/** One applier pass as the applier would run it: read back, diff, execute in order. */
export async function converge(
  driver: LoadMasterDriver,
  desired: DesiredState,
  secrets: Readonly<Record<string, TlsMaterial>> = {},
): Promise<{ ops: readonly Operation[]; results: OperationResult[] }> {
  const signal = new AbortController().signal;
  const context: ExecutionContext = {
    epoch: 1,
    signal,
    secrets: {
      resolve: async (ref: ObjectRef) => {
        const material = secrets[`${ref.namespace}/${ref.name}`];
        if (material === undefined) throw new Error(`no test Secret ${ref.namespace}/${ref.name}`);
        return material;
      },
    },
  };
  const observed = await driver.readBack(signal);
  const ops = driver.diff(driver.render(desired), observed);
  const results: OperationResult[] = [];
  for (const op of ops) results.push(await driver.execute(op, context));
  return { ops, results };
}
