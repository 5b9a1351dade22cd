import type { ApplianceConfig, ClusterConfig } from '@portolan/fleet-config';
import { isNamespaceInScope, profileFromConfig, servesCluster } from '../translate/appliance-profile.ts';
import { removalPolicyOf, removalWeight } from '../world/removal-hold.ts';
import { selectIngress } from '../translate/select-ingress.ts';
import type { WorldView } from '../world/world-view.ts';

/** The fleet-config parts that decide what an appliance serves. */
export interface ServingConfig {
  readonly clusters: readonly ClusterConfig[];
  readonly appliances: readonly ApplianceConfig[];
}

/** Ingresses a fleet-config change stops serving on one appliance, held because they weigh too much. */
export interface SelectionDrop {
  readonly appliance: string;
  /** `cluster`, `namespace`, `name` of each Ingress the old config served and the new one does not. */
  readonly ingresses: readonly { readonly cluster: string; readonly namespace: string; readonly name: string }[];
  readonly reason: string;
}

/**
 * The removals a fleet-config change makes without Kubernetes asking for them: Ingresses an appliance served under
 * the previous config (namespace scope, IngressClass controllers) and does not under the new one. Weighed like a
 * relist's unexplained removals — hosts dropped against hosts served, more than the appliance's
 * `safety.maxRemovalFraction` and at least `safety.minRemovals` — and returned only when they must be held. A cluster
 * taken out of an appliance's list is left to the new config (the planner no longer reads that cluster for it).
 */
export function selectionDrops(world: WorldView, previous: ServingConfig, next: ServingConfig): SelectionDrop[] {
  const out: SelectionDrop[] = [];
  for (const now of next.appliances) {
    const before = previous.appliances.find((a) => a.name === now.name);
    if (before === undefined) continue;
    const [oldProfile, newProfile] = [profileFromConfig(before), profileFromConfig(now)];
    const ingresses: { cluster: string; namespace: string; name: string }[] = [];
    let served = 0;
    let dropped = 0;
    for (const cluster of world.clusterNames()) {
      const oldCluster = previous.clusters.find((c) => c.name === cluster);
      const newCluster = next.clusters.find((c) => c.name === cluster);
      if (
        oldCluster === undefined ||
        newCluster === undefined ||
        !servesCluster(oldProfile, cluster) ||
        !servesCluster(newProfile, cluster)
      )
        continue;
      const classes = world.ingressClasses(cluster);
      for (const ing of world.ingresses(cluster)) {
        const ns = ing.metadata.namespace;
        if (!isNamespaceInScope(ns, oldCluster.namespaces) || !selectIngress(ing, classes, oldProfile).selected)
          continue;
        const weight = removalWeight('Ingress', ing);
        served += weight;
        if (isNamespaceInScope(ns, newCluster.namespaces) && selectIngress(ing, classes, newProfile).selected) continue;
        dropped += weight;
        ingresses.push({ cluster, namespace: ns, name: ing.metadata.name });
      }
    }
    const policy = removalPolicyOf(now);
    if (served === 0 || dropped / served <= policy.maxRemovalFraction || dropped < policy.minRemovals) continue;
    const percent = (f: number): string => `${Math.round(f * 1000) / 10}%`;
    const reason = `a fleet-config change no longer serves ${dropped} of ${served} hosts on ${now.name} (${percent(dropped / served)}; limit ${percent(policy.maxRemovalFraction)} and ${policy.minRemovals}); no Kubernetes change asked for it`;
    ingresses.sort((a, b) =>
      `${a.cluster}/${a.namespace}/${a.name}` < `${b.cluster}/${b.namespace}/${b.name}` ? -1 : 1,
    );
    out.push({ appliance: now.name, ingresses, reason });
  }
  return out;
}
