import type { StreamConfig, ConsumerConfig } from '@nats-io/jetstream';
import { AckPolicy, DeliverPolicy, DiscardPolicy, RetentionPolicy, StorageType } from '@nats-io/jetstream';

/** The one stream and the durable consumers of the pipeline, declared once and provisioned by every service. */
export interface BusDeclaration {
  readonly stream: Partial<StreamConfig> & { name: string; subjects: string[] };
  readonly consumers: Readonly<Record<string, Partial<ConsumerConfig> & { durable_name: string }>>;
}

const nanos = (ms: number): number => ms * 1_000_000;

/** Declares the pipeline stream (`kube.>`, `plan.>`, `apply.>`) and the planner's durable consumer. */
export function busDeclaration(options: { stream: string; replicas: number; maxPayloadBytes: number; ackWaitMs?: number; maxAckPending?: number }): BusDeclaration {
  return {
    stream: {
      name: options.stream,
      subjects: ['kube.>', 'plan.>', 'apply.>'],
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      discard: DiscardPolicy.Old,
      num_replicas: options.replicas,
      // Dedup by Nats-Msg-Id for two minutes; the planner absorbs later duplicates itself (FM-9).
      duplicate_window: nanos(120_000),
      max_msg_size: options.maxPayloadBytes,
    },
    consumers: {
      planner: {
        durable_name: 'planner',
        filter_subject: 'kube.>',
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ack_wait: nanos(options.ackWaitMs ?? 30_000),
        // In-order folding: one message in flight; the planner batches inside its transaction instead.
        max_ack_pending: options.maxAckPending ?? 1000,
        max_deliver: -1,
      },
    },
  };
}
