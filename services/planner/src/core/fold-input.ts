import type { PlannerInput } from './world/decode-bus-message.ts';
import type { SyncTracker } from './world/sync-tracker.ts';
import type { Planner } from './planner.ts';

/**
 * Folds one decoded input into the core; heartbeats only move the freshness clock; markers also count toward sync;
 * approvals release the safety rule's holds.
 */
export function foldInput(
  planner: Planner,
  input: PlannerInput,
  heartbeats: Map<string, number>,
  sync?: SyncTracker,
): void {
  switch (input.type) {
    case 'event':
      planner.applyEvent(input.event);
      break;
    case 'marker':
      planner.applyListMarker(input.marker);
      sync?.noteMarker(input.marker);
      break;
    case 'heartbeat':
      heartbeats.set(input.cluster, input.sentAtMs);
      break;
    case 'approval':
      planner.approveHolds(input.approval);
      break;
    case 'refused':
      planner.refuseObjects(input.refusal);
      break;
    case 'selection-held':
      planner.holdSelection(input.held, input.heldAtMs);
      break;
    case 'unreadable':
      break;
  }
}
