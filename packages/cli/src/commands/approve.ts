import type { CliCommand } from '../command.ts';
import { UsageError } from '../command.ts';
import { AUDIT_COMMON } from './audit-command.ts';

/** The options of the commands that write (approve, rollback, resume): the reason and the operator token, for their usage texts. */
export const WRITE_OPTIONS = `  --reason "<why>"          required (at most 1000 characters): recorded with the action and shown in history
  --token-file <file>       an operator token (default $PORTOLAN_TOKEN, then operator.token beside the fleet
                            config, which \`portolan up\` writes); its SHA-256 must be in the config's console.tokens`;

const usage = `Usage: portolan approve <appliance> --reason "<why>" [--wait SECONDS] [--token-file <file>] [-o json|yaml]

Approves the removals the safety rule holds in the clusters the appliance serves. The rule holds only removals
no explicit delete explains (objects a relist no longer lists) when they take more than safety.maxRemovalFraction
of a cluster's hosts or members of one kind and at least safety.minRemovals; everything else keeps flowing.
The approval goes into the event log (who, why, when), the planner carries the removals out at once and the
leader applies the resulting snapshot; the command waits (default 10 s each) and reports what happened, exit 1
when the planner has not folded it in that time.
${WRITE_OPTIONS}
${AUDIT_COMMON}`;

/** `portolan approve`: an operator's approval of the removals the safety rule holds (the body is @portolan/audit's). */
export const approve: CliCommand = {
  path: ['approve'],
  summary: 'approve the removals the safety rule holds for an appliance, with a reason',
  usage,
  async run(args) {
    const audit = await import('@portolan/audit');
    try {
      return await audit.auditCommands.approve(args, audit.processIo());
    } catch (e) {
      if (e instanceof audit.AuditUsageError) throw new UsageError(e.message, { cause: e });
      throw e;
    }
  },
};
