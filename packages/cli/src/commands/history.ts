import { AUDIT_COMMON, auditCommand } from './audit-command.ts';

/** `portolan history`: snapshots, applies and drift of one appliance in time order, with their causes. */
export const history = auditCommand(
  ['history'],
  'history',
  'snapshots and applies of an appliance in time order, with what caused each',
  `Usage: portolan history <appliance> [--since T] [--until T] [-o json|yaml]

Snapshots (planned, held, rollbacks), applies and drift observations of one appliance, oldest first. Each
snapshot shows what caused it: the archived Kubernetes events folded since the previous snapshot (stream
sequence range, objects with resourceVersions) and its trace id; each apply its epoch, leader and result.
${AUDIT_COMMON}`,
);
