import { AUDIT_COMMON, auditCommand } from './audit-command.ts';

/** `portolan diff`: object-level and vendor-level differences between two snapshots. */
export const diff = auditCommand(
  ['diff'],
  'diff',
  'object-level changes between two snapshots and the vendor operations a push would make',
  `Usage: portolan diff <from-snapshot> <to-snapshot> [-o json|yaml]

Object-level changes from the first snapshot to the second (added, removed, changed), then the ordered
vendor-level operations a push from one to the other would make: both are rendered with the appliance's
driver and diffed, without contacting the appliance.
${AUDIT_COMMON}`,
);
