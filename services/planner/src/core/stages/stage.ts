import type { SnapshotEncoder } from '@portolan/snapshot';
import type { ClaimIndex } from '../incremental/claim-index.ts';
import type { DirtySet } from '../incremental/dirty-set.ts';
import type { ApplianceProfile, ClusterProfile } from '../translate/appliance-profile.ts';
import type { WorldView } from '../world/world-view.ts';
import type { PlanWork } from './plan-work.ts';

/**
 * What every stage of one appliance's engine shares: the appliance, the clusters' fleet-config profiles, the
 * snapshot being encoded, and the claim index (written by the contests, read by pools and conditions).
 */
export interface StageContext {
  readonly profile: ApplianceProfile;
  readonly clusters: ReadonlyMap<string, ClusterProfile>;
  readonly encoder: SnapshotEncoder;
  readonly claims: ClaimIndex;
}

/** One pass of the engine: the world as it is now, what changed since the last pass, and the pass's work lists. */
export interface PlanPass {
  readonly world: WorldView;
  readonly dirty: DirtySet;
  readonly work: PlanWork;
}

/**
 * One planning phase of an appliance in Ingress mode. The engine runs its stages in a fixed order; a stage owns its
 * own indexes, revisits only what the stages before it marked in the pass's work lists, and may read (never write)
 * the indexes of earlier stages.
 */
export interface Stage {
  run(pass: PlanPass): void;
}
