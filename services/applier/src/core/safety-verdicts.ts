import type { DesiredState } from '@portolan/desired-state';
import { checkSafety } from '@portolan/planner';

/** What a verdict needs of a snapshot. */
export interface SafetySubject {
  readonly desired: DesiredState;
  /** 'rollback' snapshots are an operator's explicit choice and are never held. */
  readonly origin: string;
}

/** Pairs remembered at most; only the newest (last applied → target) pairs are asked for again. */
const MEMO_MAX = 64;

/**
 * The safety hold's verdict for moving the appliance from one snapshot to another, remembered per pair: the check
 * is O(size) when the two states share nothing, and the same pair is asked for on every cycle until it changes.
 * Approvals are not part of it (they can come later). Pure: snapshots come from the caller's loader.
 */
export class SafetyVerdicts {
  readonly #memo = new Map<string, string | null>();

  /** Why `afterId` is held against `beforeId` (null: it is not), removing at most `fraction` of what was applied. */
  async reason(beforeId: string, afterId: string, fraction: number, load: (id: string) => Promise<SafetySubject>): Promise<string | null> {
    const key = `${beforeId}->${afterId}`;
    const held = this.#memo.get(key);
    if (held !== undefined) return held;
    const [before, after] = [await load(beforeId), await load(afterId)];
    const verdict = after.origin === 'rollback' ? { held: false as const } : checkSafety(before.desired, after.desired, fraction, false);
    const reason = verdict.held ? verdict.reasons.map((r) => `${r.reason}: ${r.message}`).join('; ') : null;
    if (this.#memo.size >= MEMO_MAX) this.#memo.clear();
    this.#memo.set(key, reason);
    return reason;
  }
}
