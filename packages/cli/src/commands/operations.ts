import { AUDIT_COMMON, auditCommand } from './audit-command.ts';

/** `portolan operations`: what one apply sent to its appliance, operation by operation. */
export const operations = auditCommand(
  ['operations'],
  'operations',
  'every operation one apply sent, with its result (payloads with -o json|yaml)',
  `Usage: portolan operations <appliance> <apply> [-o json|yaml]

The operations an apply sent to the appliance, in the order they were listed, each with its result (ok,
failed with the appliance's error, or not sent when the apply was fenced or stopped first) and its time.
-o json or -o yaml adds each operation's vendor payload as sent (Secrets are named, never included).
<apply> is an apply id from \`portolan history <appliance>\`.
${AUDIT_COMMON}`,
);
