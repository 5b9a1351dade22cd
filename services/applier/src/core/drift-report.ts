import type { Operation } from '@portolan/appliance-driver';
import type { JsonObject } from '@portolan/desired-state';
import { compareCodeUnits } from '@portolan/desired-state';

/** Drift between what was last applied and what the appliance holds now, object by object. */
export interface DriftReport {
  /** Vendor objects that differ, each "type/name", sorted. */
  readonly objects: readonly string[];
  /** What the appliance holds now for each drifted object (null: missing). Vendor shape, secrets by reference only. */
  readonly before: Readonly<Record<string, JsonObject | null>>;
  /** What it held after the last apply (null: should not exist). */
  readonly after: Readonly<Record<string, JsonObject | null>>;
}

/** What the applier does about drift (appliance config `drift.policy`). */
export type DriftPolicy = 'correct' | 'report';

const objectKey = (op: Operation): string => `${op.objectType}/${op.objectName}`;

/**
 * Builds the drift report from the driver's own pure diff, run both ways: `restore` turns the observed
 * objects back into the last applied ones (its payloads are the "after"), `reproduce` turns the last applied
 * objects into the observed ones (its payloads are the "before"). Null when nothing drifted.
 */
export function describeDrift(restore: readonly Operation[], reproduce: readonly Operation[]): DriftReport | null {
  if (restore.length === 0) return null;
  const before: Record<string, JsonObject | null> = {};
  const after: Record<string, JsonObject | null> = {};
  for (const op of restore) after[objectKey(op)] = op.action === 'delete' ? null : op.payload;
  for (const op of reproduce) before[objectKey(op)] = op.action === 'delete' ? null : op.payload;
  const objects = [...new Set(restore.map(objectKey))].sort(compareCodeUnits);
  for (const o of objects) before[o] ??= null;
  return { objects, before, after };
}

/** The recorded action for drift under a policy. */
export function driftAction(policy: DriftPolicy): 'corrected' | 'reported' {
  return policy === 'correct' ? 'corrected' : 'reported';
}
