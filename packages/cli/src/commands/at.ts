import { AUDIT_COMMON, auditCommand } from './audit-command.ts';

/** `portolan at`: the configuration an appliance had at a time, from the apply log. */
export const at = auditCommand(
  ['at'],
  'at',
  'the configuration an appliance had at a time (read back after the apply in effect)',
  `Usage: portolan at <appliance> --time T [-o json|yaml]

What the appliance held at T: the vendor objects read back after the newest apply (succeeded, partial or
no-op) that finished at or before T — the apply log, not only the plan — with how that read-back differed
from its snapshot and any drift observed between that apply and T.
${AUDIT_COMMON}`,
);
