import type { DesiredState } from '@portolan/desired-state';
import { profileFromConfig, type ClusterProfile } from './translate/appliance-profile.ts';
import { planAppliance } from './stages/plan-appliance.ts';
import type { PlannerConfig } from './planner.ts';
import { splitSnapshot } from '@portolan/snapshot';
import type { WorldView } from './world/world-view.ts';

/** A from-scratch plan of one appliance: its desired state and snapshot root. */
export interface ScratchPlan {
  readonly desired: DesiredState;
  readonly root: string;
}

/**
 * Plans every appliance from scratch over a world (full recompute): the benchmark baseline and the correctness
 * oracle for the incremental Planner. Sorted by appliance name.
 */
export function planFromScratch(world: WorldView, config: PlannerConfig): Map<string, ScratchPlan> {
  const clusters = new Map<string, ClusterProfile>(
    config.clusters.map((c) => [c.name, { name: c.name, weight: c.weight, namespaces: c.namespaces }]),
  );
  const out = new Map<string, ScratchPlan>();
  for (const a of [...config.appliances].sort((x, y) => (x.name < y.name ? -1 : 1))) {
    const desired = planAppliance(world, profileFromConfig(a), clusters);
    out.set(a.name, { desired, root: splitSnapshot(desired).root });
  }
  return out;
}
