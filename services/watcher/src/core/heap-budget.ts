/** What the heap governor remembers: the heap in use after the last collection (its floor since then). */
export interface HeapBudgetState {
  readonly floorBytes: number;
}

/** The governor's decision for one reading of the heap in use. */
export type HeapBudgetStep = { readonly collect: true } | { readonly collect: false; readonly state: HeapBudgetState };

/**
 * Decides whether the heap grew far enough above its floor (the heap in use after the last collection, or the
 * lowest reading since) to collect now. V8 alone lets the old generation reach about twice the live heap during a
 * list — and further when its concurrent marker is starved of CPU — and the pages it grew into stay resident;
 * collecting once `slackBytes` of garbage accumulated keeps the peak at live + slack whatever the machine's load.
 */
export function heapBudgetStep(state: HeapBudgetState, usedBytes: number, slackBytes: number): HeapBudgetStep {
  if (usedBytes > state.floorBytes + slackBytes) return { collect: true };
  return { collect: false, state: usedBytes < state.floorBytes ? { floorBytes: usedBytes } : state };
}
