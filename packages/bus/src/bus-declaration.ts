import type { StreamConfig, ConsumerConfig } from '@nats-io/jetstream';
import { AckPolicy, DeliverPolicy, DiscardPolicy, RetentionPolicy, StorageType } from '@nats-io/jetstream';

/** The pipeline's streams and durable consumers, declared once and provisioned by every service. */
export interface BusDeclaration {
  /**
   * The stream of record for Kubernetes observations (`kube.>`). Nothing else is published into it, so its
   * sequence numbers are contiguous: the planner folds exactly seq S+1 after S and can detect gaps and regressions.
   */
  readonly kube: Partial<StreamConfig> & { name: string; subjects: string[] };
  /** Notifications between services (`plan.>`, `apply.>`): snapshot committed, apply recorded, drift observed. */
  readonly pipeline: Partial<StreamConfig> & { name: string; subjects: string[] };
  /** Prepended (with a dot) to every subject: lets several deployments, or parallel tests, share one NATS. '' for none. */
  readonly subjectPrefix: string;
  /** Durable consumers on the kube stream, by name. */
  readonly consumers: Readonly<Record<string, Partial<ConsumerConfig> & { durable_name: string }>>;
}

const nanos = (ms: number): number => ms * 1_000_000;

/** Declares the kube stream `<stream>`, the notification stream `<stream>_PIPELINE`, and the planner's durable consumer. */
export function busDeclaration(options: {
  stream: string;
  replicas: number;
  maxPayloadBytes: number;
  subjectPrefix?: string;
  ackWaitMs?: number;
  maxAckPending?: number;
}): BusDeclaration {
  const prefix = options.subjectPrefix ?? '';
  if (prefix !== '' && !/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(prefix))
    throw new RangeError(`subject prefix "${prefix}" must be dot-separated tokens`);
  const p = (s: string): string => (prefix === '' ? s : `${prefix}.${s}`);
  const common = {
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    num_replicas: options.replicas,
    // Dedup by Nats-Msg-Id for two minutes; the planner absorbs later duplicates itself.
    duplicate_window: nanos(120_000),
    max_msg_size: options.maxPayloadBytes,
  };
  return {
    kube: { name: options.stream, subjects: [p('kube.>')], ...common },
    pipeline: {
      name: `${options.stream}_PIPELINE`,
      subjects: [p('plan.>'), p('apply.>')],
      ...common,
      max_age: nanos(7 * 24 * 3600_000),
    },
    subjectPrefix: prefix,
    consumers: {
      planner: {
        durable_name: 'planner',
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ack_wait: nanos(options.ackWaitMs ?? 30_000),
        max_ack_pending: options.maxAckPending ?? 2000,
        max_deliver: -1,
      },
    },
  };
}
