import type { TrimmedSecret } from '@portolan/kube-model';
import {
  isNamespaceInScope,
  servesCluster,
  type ApplianceProfile,
  type ClusterProfile,
} from '../translate/appliance-profile.ts';
import { buildIntent, type IngressIntent } from '../translate/ingress-intent.ts';
import { issue } from '../translate/issue.ts';
import { selectIngress } from '../translate/select-ingress.ts';
import type { WorldView } from '../world/world-view.ts';
import type { PlanPass, Stage, StageContext } from './stage.ts';

/** The intent of one Ingress for this appliance, or null when the appliance does not serve it. */
export function intentFor(
  world: WorldView,
  profile: ApplianceProfile,
  cluster: ClusterProfile,
  namespace: string,
  name: string,
): IngressIntent | null {
  const ingress = world.ingress(cluster.name, namespace, name);
  if (ingress === undefined) return null;
  // An Ingress a fleet-config change dropped stays selected while the safety rule holds that removal.
  const held = world.selectionHeldFor(profile.name, cluster.name, namespace, name);
  const inScope = isNamespaceInScope(namespace, cluster.namespaces);
  const selection = inScope
    ? selectIngress(ingress, world.ingressClasses(cluster.name), profile)
    : { selected: false as const };
  if (!selection.selected && held === null) return null;
  const selectionWarning = selection.selected
    ? selection.warning
    : issue('RemovalHeld', `${held}; approve with portolan approve ${profile.name} --reason "..."`);
  // What this appliance refused (its own check, narrowed by bisection) is left out of its plan until it changes: a
  // refused Secret reads as unusable material, a refused Ingress is rejected.
  const secrets = (ns: string, n: string): TrimmedSecret | undefined => {
    const secret = world.secret(cluster.name, ns, n);
    const refused = secret === undefined ? null : world.refusalOf(profile.name, cluster.name, 'Secret', ns, n);
    return refused === null
      ? secret
      : { ...secret!, tls: { ok: false, reason: `appliance ${profile.name} refused it: ${refused}` } };
  };
  const refused = world.refusalOf(profile.name, cluster.name, 'Ingress', namespace, name);
  const refusal =
    refused === null
      ? null
      : issue('RefusedByAppliance', `appliance ${profile.name} refused this Ingress's configuration: ${refused}`);
  return buildIntent(ingress, cluster.name, profile, secrets, selectionWarning, refusal);
}

/**
 * Stage 1, select → validate → annotate: the intent of every dirty Ingress. Keeps the intents it built (an
 * incremental engine's cache: an Ingress whose intent signature is unchanged stops here) and lists the changed ones
 * for the stages after it.
 */
export class IntentStage implements Stage {
  private readonly ctx: StageContext;
  private readonly intents = new Map<string, IngressIntent>();

  constructor(ctx: StageContext) {
    this.ctx = ctx;
  }

  /** The current intent of an Ingress (by world key string), if this appliance serves it. */
  intentOf(key: string): IngressIntent | undefined {
    return this.intents.get(key);
  }

  run({ world, dirty, work }: PlanPass): void {
    if (dirty.ingresses.size === 0) return;
    const { profile, clusters } = this.ctx;
    for (const [key, id] of dirty.ingresses) {
      const cp = clusters.get(id.cluster);
      const next =
        cp !== undefined && servesCluster(profile, id.cluster)
          ? intentFor(world, profile, cp, id.namespace, id.name)
          : null;
      const prev = this.intents.get(key) ?? null;
      if (prev?.signature === next?.signature) continue;
      if (next === null) this.intents.delete(key);
      else this.intents.set(key, next);
      work.intentChanges.push({ key, prev, next });
      work.conditions.add(key);
      work.reclaim.add(key);
    }
  }
}
