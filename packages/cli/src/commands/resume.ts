import { AUDIT_COMMON, auditCommand } from './audit-command.ts';
import { WRITE_OPTIONS } from './approve.ts';

/** `portolan resume`: end a rollback pin so planning applies again. */
export const resume = auditCommand(
  ['resume'],
  'resume',
  'remove a rollback pin: planning applies to the appliance again',
  `Usage: portolan resume <appliance> --reason "<why>" [--token-file <file>] [-o json|yaml]

Removes the pin a rollback set. When the planner made snapshots while pinned, the newest one is released
(appended again, unheld) so the appliance converges to current planning now; otherwise the next planner
snapshot applies normally.
${WRITE_OPTIONS}
${AUDIT_COMMON}`,
);
