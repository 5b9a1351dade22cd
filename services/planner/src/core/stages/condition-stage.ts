import type { ObjectRef } from '@portolan/desired-state';
import { ingressConditions } from './assemble-parts.ts';
import type { IntentStage } from './intent-stage.ts';
import type { ListenerStage } from './listener-stage.ts';
import type { PoolStage } from './pool-stage.ts';
import type { PlanPass, Stage, StageContext } from './stage.ts';

/**
 * Stage 10, conditions: writes the conditions of every Ingress whose intent, allocation, contests or pools changed.
 * Keeps the reference of every Ingress it wrote conditions for (an incremental engine's cache: when an Ingress
 * leaves the appliance, its conditions are cleared under the reference they were written with).
 */
export class ConditionStage implements Stage {
  private readonly ctx: StageContext;
  private readonly intents: IntentStage;
  private readonly listeners: ListenerStage;
  private readonly pools: PoolStage;
  private readonly written = new Map<string, ObjectRef>();

  constructor(ctx: StageContext, intents: IntentStage, listeners: ListenerStage, pools: PoolStage) {
    this.ctx = ctx;
    this.intents = intents;
    this.listeners = listeners;
    this.pools = pools;
  }

  run({ work }: PlanPass): void {
    if (work.conditions.size > 0) for (const key of work.conditions) this.write(key);
  }

  private write(key: string): void {
    const { encoder, claims } = this.ctx;
    const intent = this.intents.intentOf(key);
    if (intent === undefined) {
      const ref = this.written.get(key);
      if (ref === undefined) return;
      encoder.setConditions(ref, []);
      this.written.delete(key);
      return;
    }
    const uses = claims.usesOf(key);
    const poolIssues = uses.flatMap((u) => this.pools.issuesOf(u.pool, u.cluster));
    this.written.set(key, intent.ref);
    encoder.setConditions(
      intent.ref,
      ingressConditions(intent, {
        outcome: this.listeners.outcomeOf(key) ?? null,
        losses: claims.lossesOf(key),
        servesSomething: uses.length > 0,
        poolIssues,
      }),
    );
  }
}
