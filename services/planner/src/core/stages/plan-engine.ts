import { CURRENT_LAYOUT, type EncoderOptions, type SnapshotLayout } from '@portolan/snapshot';
import type { ApplianceProfile, ClusterProfile } from '../translate/appliance-profile.ts';
import { ApplianceEngine } from './appliance-engine.ts';
import { BindingEngine } from './binding-engine.ts';

/** The engine planning one appliance: its stages in Ingress mode, its bindings in LoadMaster Service mode. */
export type PlanEngine = ApplianceEngine | BindingEngine;

/** Creates the engine for an appliance's mode, empty: its first plan is a plan from scratch. */
export function createEngine(
  profile: ApplianceProfile,
  clusters: ReadonlyMap<string, ClusterProfile>,
  layout: SnapshotLayout = CURRENT_LAYOUT,
  options: EncoderOptions = {},
): PlanEngine {
  return profile.mode === 'service'
    ? new BindingEngine(profile, clusters, layout, options)
    : new ApplianceEngine(profile, clusters, layout, options);
}
