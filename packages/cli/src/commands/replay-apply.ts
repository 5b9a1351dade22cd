import { AUDIT_COMMON, auditCommand } from './audit-command.ts';

/** `portolan replay apply`: rebuild the configuration an appliance had at a time on an emulator. */
export const replayApply = auditCommand(
  ['replay', 'apply'],
  'replay-apply',
  'rebuild the configuration an appliance had at a time on an emulator or HAProxy directory',
  `Usage: portolan replay apply --to <emulator URL | HAProxy dir> --time T [--appliance A] [--insecure] [--force] [-o json|yaml]

Takes what \`portolan at\` shows (the read-back of the apply in effect at T) and pushes it through the
appliance's own driver onto a vTM or LoadMaster emulator URL (with the appliance's credentials), or writes it
into an HAProxy config directory (through a running HAProxy there, or as files checked with haproxy -c).
Certificates are taken from the archive as they were then. Exit 1 unless the target then reads back the same
configuration. --appliance may be left out when the fleet has one appliance; --insecure trusts a self-signed
emulator certificate; the appliance's own live address is refused unless --force.
${AUDIT_COMMON}`,
);
