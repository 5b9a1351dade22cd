import { AUDIT_COMMON, auditCommand } from './audit-command.ts';
import { WRITE_OPTIONS } from './approve.ts';

/** `portolan rollback`: push an earlier snapshot again, through the leader, and pin planning. */
export const rollback = auditCommand(
  ['rollback'],
  'rollback',
  'roll an appliance back to an earlier snapshot (diff, confirm, pin, apply through the leader)',
  `Usage: portolan rollback <appliance> --to <snapshot> --reason "<why>" [--yes] [--wait SECONDS] [--token-file <file>] [-o json|yaml]

Shows the diff from the head to the target, asks for confirmation (without a terminal on stdin, --yes is
required), pins the appliance, and appends a snapshot with origin "rollback", the target's content and your
reason. The applier leader applies it like any snapshot. While pinned, the planner keeps recording new
snapshots but holds them ("pinned by rollback to <id>"); \`portolan resume <appliance>\` ends that.
--wait waits up to SECONDS for the apply and exits 1 unless it succeeded.
${WRITE_OPTIONS}
${AUDIT_COMMON}`,
);
