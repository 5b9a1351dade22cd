import { randomUUID } from 'node:crypto';
import { busDeclaration, holdApprovalSubject, NatsEventBus } from '@portolan/bus';
import type { FleetConfig } from '@portolan/fleet-config';
import { create, HoldApprovedSchema, timestampFromMs, toBinary } from '@portolan/proto';

/**
 * Publishes a HoldApproved into the kube stream, so the planner folds it in order with the Kubernetes events;
 * returns its stream sequence. The message id makes a retried publish land once.
 */
export async function publishApproval(
  config: FleetConfig,
  approval: { readonly appliance: string; readonly approvedBy: string; readonly reason: string },
): Promise<number> {
  const approvalId = randomUUID();
  const message = create(HoldApprovedSchema, {
    appliance: approval.appliance,
    approvedBy: approval.approvedBy,
    reason: approval.reason,
    approvedAt: timestampFromMs(Date.now()),
    approvalId,
  });
  const declaration = busDeclaration({
    stream: config.bus.stream,
    replicas: config.bus.replicas,
    maxPayloadBytes: config.bus.maxPayloadBytes,
    subjectPrefix: config.bus.subjectPrefix,
  });
  const nats = await NatsEventBus.open(config.bus.url, declaration, { name: 'portolan-approve' });
  try {
    const ack = await nats.publish(holdApprovalSubject, toBinary(HoldApprovedSchema, message), {
      msgId: `approve:${approvalId}`,
    });
    return ack.seq;
  } finally {
    await nats.close();
  }
}
