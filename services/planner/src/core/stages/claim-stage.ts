import type { IntentStage } from './intent-stage.ts';
import type { ListenerStage } from './listener-stage.ts';
import { claimsOf, NO_CLAIMS, type Claims } from './route-claims.ts';
import type { PlanPass, Stage } from './stage.ts';

/**
 * Stage 3, claims: what each accepted Ingress claims on its listeners (routes, a default backend, TLS hosts). Keeps
 * every Ingress's claims (an incremental engine's cache: the contests withdraw exactly what an Ingress claimed
 * before) and lists the changes for the route, default-backend and TLS stages.
 */
export class ClaimStage implements Stage {
  private readonly intents: IntentStage;
  private readonly listeners: ListenerStage;
  private readonly claims = new Map<string, Claims>();

  constructor(intents: IntentStage, listeners: ListenerStage) {
    this.intents = intents;
    this.listeners = listeners;
  }

  run({ work }: PlanPass): void {
    if (work.reclaim.size === 0) return;
    for (const key of work.reclaim) {
      const intent = this.intents.intentOf(key);
      const outcome = this.listeners.outcomeOf(key);
      const prev = this.claims.get(key) ?? NO_CLAIMS;
      const next = intent !== undefined && outcome !== undefined ? claimsOf(intent, outcome) : NO_CLAIMS;
      work.claimChanges.push({ key, prev, next });
      if (next === NO_CLAIMS) this.claims.delete(key);
      else this.claims.set(key, next);
    }
  }
}
