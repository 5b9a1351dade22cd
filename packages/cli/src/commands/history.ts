import { AUDIT_COMMON, auditCommand } from './audit-command.ts';

/** `portolan history`: snapshots, applies and drift of one appliance in time order, with their causes. */
export const history = auditCommand(
  ['history'],
  'history',
  'snapshots and applies of an appliance in time order, with what caused each',
  `Usage: portolan history <appliance> [--since T] [--until T] [--object TEXT] [--kind K]... [-o json|yaml]

Snapshots (planned, held, rollbacks), applies, drift observations, held removals and operator actions
(approval, rollback, resume: who and why) of one appliance, oldest first. Each snapshot shows what caused it:
the archived Kubernetes events folded since the previous snapshot (stream sequence range, objects with
resourceVersions) and its trace id; each apply its epoch, leader and result.
  --object TEXT   only snapshots whose cause names an object containing TEXT (any case; \`Ingress shop/web\`
                  or \`c1/Ingress/shop/web\`), and the applies that pushed them
  --kind K        only entries of kind K (repeatable): snapshot, apply, drift, hold, approval, rollback, resume
${AUDIT_COMMON}`,
);
