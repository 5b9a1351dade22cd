import { AUDIT_COMMON, auditCommand } from './audit-command.ts';

/** `portolan status`: the pipeline at a glance. */
export const status = auditCommand(
  ['status'],
  'status',
  'clusters (watch freshness), appliances (leader, last apply, lag), stream and consumer lag',
  `Usage: portolan status [-o json|yaml]

Clusters: newest archived watcher heartbeat, its age and sync state (stale after the cluster's
staleAfterSeconds). Appliances: lease holder and fencing epoch, head snapshot, last apply and its status,
lag of applies behind plans, rollback pins. Stream: last sequence of the kube stream and each durable
consumer's position and lag. Exit 1 when something needs attention (listed under PROBLEMS).
${AUDIT_COMMON}`,
);
