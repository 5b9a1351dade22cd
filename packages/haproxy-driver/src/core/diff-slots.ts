import type { BackendSlots, ServerSlot } from './haproxy-bundle.ts';
import { isSameSlot } from './assign-slots.ts';

/** One slot to rewrite through the Runtime API. */
export interface SlotChange {
  readonly backend: string;
  readonly slot: ServerSlot;
}

/**
 * The slots whose running content differs from the desired one, in backend then slot order.
 * With `runningOnly`, backends and slots the process does not have yet are skipped (used right before a
 * reload, to bring the slots that survive it up to date so the server-state dump carries them over).
 */
export function diffSlots(
  desired: readonly BackendSlots[],
  observed: readonly BackendSlots[],
  runningOnly = false,
  /** The only positions whose backends can differ (a render's delta), ascending; default: all. */
  positions?: readonly number[],
): SlotChange[] {
  let running: Map<string, BackendSlots> | null = null;
  const changes: SlotChange[] = [];
  for (let k = 0, end = positions === undefined ? desired.length : positions.length; k < end; k++) {
    const position = positions === undefined ? k : positions[k]!;
    const backend = desired[position]!;
    // Both lists are usually in the same order: look by position first, by name only when that fails.
    const atPosition = observed[position];
    const current =
      atPosition?.name === backend.name
        ? atPosition
        : (running ??= new Map(observed.map((b) => [b.name, b]))).get(backend.name);
    if (current === backend || (current === undefined && runningOnly)) continue;
    backend.slots.forEach((slot, i) => {
      const now = current?.slots[i];
      if (now === undefined && runningOnly) return;
      if (now === undefined || now.name !== slot.name || !isSameSlot(slot, now)) {
        changes.push({ backend: backend.name, slot });
      }
    });
  }
  return changes;
}

/** The slots after some slot changes took effect (backends and slots not named stay as they are). */
export function withSlotChanges(backends: readonly BackendSlots[], changes: readonly SlotChange[]): BackendSlots[] {
  if (changes.length === 0) return [...backends];
  const byBackend = new Map<string, Map<string, ServerSlot>>();
  for (const change of changes) {
    const slots = byBackend.get(change.backend) ?? new Map<string, ServerSlot>();
    slots.set(change.slot.name, change.slot);
    byBackend.set(change.backend, slots);
  }
  return backends.map((backend) => {
    const changed = byBackend.get(backend.name);
    return changed === undefined
      ? backend
      : { name: backend.name, slots: backend.slots.map((s) => changed.get(s.name) ?? s) };
  });
}
