import { relistRequestSubject, type NatsEventBus } from '@portolan/bus';
import type { Logger } from '@portolan/telemetry';
import type { KubeKind } from '@portolan/kube-model';
import type { PlannerInput } from './core/world/decode-bus-message.ts';
import type { World } from './core/world/world.ts';
import { StateAudit } from './core/world/state-audit.ts';
import type { PlannerMetrics } from './planner-metrics.ts';

/**
 * The planner's side of lost-message detection: on each folded heartbeat it compares the kinds the watcher reported
 * settled with its own state at that point of the stream (StateAudit says when a difference is a loss), and after
 * the batch commits asks the cluster's watchers to relist and republish those kinds. The request is plain NATS and
 * leaves no trace in the stream: replay folds exactly what it folded before.
 */
export class LostMessageAudit {
  private readonly audit = new StateAudit();
  private readonly asked = new Map<string, Set<KubeKind>>();

  /** Called right after `input` was folded, so the world is the state the heartbeat's digests describe. */
  note(input: PlannerInput, world: World, nowMs: number, log: Logger, metrics: PlannerMetrics | null): void {
    if (input.type !== 'heartbeat') return;
    for (const { kind, digest } of input.settled) {
      const mine = world.stateDigest(input.cluster, kind);
      const verdict = this.audit.observe(input.cluster, input.watcherId, kind, digest, mine, nowMs);
      if (verdict.type !== 'request') continue;
      metrics?.lostMessagesSuspected.inc({ cluster: input.cluster, kind });
      log.warn(
        {
          cluster: input.cluster,
          kind,
          watcher: input.watcherId,
          watcherObjects: verdict.watcher.count,
          plannerObjects: verdict.planner.count,
        },
        'state differs from a settled watcher: a message was lost on the way; asking the watchers to republish',
      );
      let kinds = this.asked.get(input.cluster);
      if (kinds === undefined) this.asked.set(input.cluster, (kinds = new Set()));
      kinds.add(kind);
    }
  }

  /** Sends the requests noted since the last call (after the batch committed: a failed one is folded again). */
  send(bus: NatsEventBus | null): void {
    if (this.asked.size === 0) return;
    for (const [cluster, kinds] of this.asked)
      bus?.notify(relistRequestSubject(cluster), new TextEncoder().encode(JSON.stringify({ kinds: [...kinds] })));
    this.asked.clear();
  }

  /** Drops requests noted in a batch that did not commit. */
  discard(): void {
    this.asked.clear();
  }
}
