// @portolan/planner — the planner's pure core (the JetStream/Postgres shell is wired by the integrator).
export { Planner, PLANNER_VERSION, StalePlanError, type PlannerConfig, type PlannedAppliance } from './core/planner.ts';
export { planFromScratch, type ScratchPlan } from './core/plan-from-scratch.ts';
export { World, type WorldChange } from './core/world/world.ts';
export type { WorldView } from './core/world/world-view.ts';
export {
  profileFromConfig,
  VTM_CONTROLLER,
  type ApplianceProfile,
  type ClusterProfile,
} from './core/translate/appliance-profile.ts';
export { applyFailStatic, staleClusters, type StalenessPolicy } from './core/holds/fail-static.ts';
export { parseStrictJson, ANNOTATION_JSON_LIMITS, type JsonLimits } from './core/translate/strict-json.ts';
export { VTM_ANNOTATIONS, NEUTRAL_ANNOTATIONS, LOADMASTER_ANNOTATIONS } from './core/translate/ingress-options.ts';
// Shell pieces (additive, for the audit's rollback and the integrator's wiring).
export {
  PgPlannerStore,
  HeadMovedError,
  type NewSnapshot,
  type ArchivedEvent,
  type SnapshotHead,
} from './adapters/pg-planner-store.ts';
export { PlannerService, type PlannerServiceOptions } from './planner-service.ts';
export { foldInput } from './core/fold-input.ts';
export { decodeBusMessage, type PlannerInput } from './core/world/decode-bus-message.ts';
export { replayVerify, type ReplayReport, type ReplayMismatch } from './replay-verify.ts';
export { plannerMetrics, type PlannerMetrics } from './planner-metrics.ts';
export { PLANNER_TUNING, plannerTuning } from './runtime-tuning.ts';
export {
  replayGoldenHistory,
  recordGoldenHistory,
  encodeGoldenHistory,
  decodeGoldenHistory,
  type GoldenHistory,
  type GoldenMismatch,
} from './golden-history.ts';
