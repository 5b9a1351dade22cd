import { buildOperationsReport, type OperationsReport } from '../core/operations-report.ts';
import { CommandFailed } from '../errors.ts';
import { requireAppliance, type AuditContext } from './audit-context.ts';

/** Every operation one apply of the appliance sent, payloads included, with its result. */
export async function operationsReport(
  ctx: AuditContext,
  params: { readonly appliance: string; readonly apply: string },
): Promise<OperationsReport> {
  const { appliance, apply: id } = params;
  requireAppliance(ctx, appliance);
  const found = await ctx.store.applyWithOperations(id);
  if (found === null)
    throw new CommandFailed(
      'not-found',
      `unknown apply "${id}"${/^\d+$/.test(id) ? '' : ' (applies are numbered; `portolan history <appliance>` lists them)'}`,
    );
  if (found.appliance !== appliance)
    throw new CommandFailed('invalid', `apply ${id} belongs to appliance "${found.appliance}", not "${appliance}"`);
  return buildOperationsReport(appliance, found.apply, found.operations, found.results);
}
