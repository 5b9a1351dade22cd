import type { CliCommand } from '../command.ts';
import { UsageError } from '../command.ts';

/** Names of the commands implemented by @portolan/audit (kept in step with its `auditCommands`). */
type AuditName =
  'history' | 'operations' | 'show' | 'diff' | 'explain' | 'at' | 'replay-apply' | 'rollback' | 'resume' | 'status';

/**
 * A `portolan` subcommand whose body lives in @portolan/audit, loaded only when the command runs (so `portolan
 * help` stays cheap). The audit's usage errors become the CLI's, which prints the usage and exits 2.
 */
export function auditCommand(path: readonly string[], name: AuditName, summary: string, usage: string): CliCommand {
  return {
    path,
    summary,
    usage,
    async run(args) {
      const audit = await import('@portolan/audit');
      try {
        return await audit.auditCommands[name](args, audit.processIo());
      } catch (e) {
        if (e instanceof audit.AuditUsageError) throw new UsageError(e.message, { cause: e });
        throw e;
      }
    },
  };
}

/** Options every audit command takes, for the usage texts. */
export const AUDIT_COMMON = `  -c, --config <fleet.yaml>  fleet config (default $PORTOLAN_CONFIG, then .portolan/fleet.yaml, which \`portolan up\` writes)
  -o, --output table|json|yaml  output format (default table)
Times (T): 2026-11-22T14:02:00Z, 2026-11-22 14:02 (local), -15m / 2h (ago), or now.`;
