import type { DesiredState } from '@portolan/desired-state';
import { worldKeyString } from '@portolan/kube-model';
import { serviceKey, type DirtyIngress, type DirtySet } from './incremental/dirty-set.ts';
import type { PlannerConfig } from './planner.ts';
import { createEngine } from './stages/plan-engine.ts';
import { clusterProfilesOf, profileFromConfig } from './translate/appliance-profile.ts';
import type { WorldView } from './world/world-view.ts';

/** A from-scratch plan of one appliance: its desired state and snapshot root. */
export interface ScratchPlan {
  readonly desired: DesiredState;
  readonly root: string;
}

/**
 * Plans every appliance from scratch over a world: a new engine per appliance, fed the whole world as one change.
 * The incremental Planner must reach the same state and root after any sequence of events (property-tested), which
 * makes this the oracle for incremental planning and the full-recompute baseline. Sorted by appliance name.
 */
export function planFromScratch(world: WorldView, config: PlannerConfig): Map<string, ScratchPlan> {
  const clusters = clusterProfilesOf(config.clusters);
  const everything = wholeWorld(world);
  const out = new Map<string, ScratchPlan>();
  for (const a of [...config.appliances].sort((x, y) => (x.name < y.name ? -1 : 1))) {
    const engine = createEngine(profileFromConfig(a), clusters);
    const { root } = engine.plan(world, everything);
    out.set(a.name, { desired: engine.encoder.toDesiredState(), root });
  }
  return out;
}

/** The whole world as one change: every Ingress, every Service, every cluster's Nodes and Gateway objects. */
export function wholeWorld(world: WorldView): DirtySet {
  const ingresses = new Map<string, DirtyIngress>();
  const services = new Set<string>();
  for (const cluster of world.clusterNames()) {
    for (const ing of world.ingresses(cluster)) {
      const { namespace, name } = ing.metadata;
      ingresses.set(worldKeyString({ cluster, kind: 'Ingress', namespace, name }), { cluster, namespace, name });
    }
    for (const svc of world.services(cluster))
      services.add(serviceKey(cluster, svc.metadata.namespace, svc.metadata.name));
  }
  const clusters = new Set(world.clusterNames());
  return { ingresses, services, nodeClusters: clusters, gatewayClusters: clusters };
}
