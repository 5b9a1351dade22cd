import { AUDIT_COMMON, auditCommand } from './audit-command.ts';

/** `portolan show`: one snapshot's desired state, object by object. */
export const show = auditCommand(
  ['show'],
  'show',
  'show a snapshot object by object (and its vendor objects with --vendor)',
  `Usage: portolan show <snapshot> [--vendor] [-o json|yaml]

The desired state of a snapshot: virtual services, routes, pools and members, certificates, bindings and
conditions, each with the Kubernetes objects it comes from. --vendor also lists the vendor objects the
appliance's driver renders from it. <snapshot> is an id from \`portolan history\`, or <appliance>@head.
${AUDIT_COMMON}`,
);
