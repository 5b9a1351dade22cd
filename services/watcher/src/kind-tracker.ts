import { ObjectLedger, type StreamState, type WatchedKind } from './core/index.ts';

/** Shared state of one kind: its ledger, list generation and the states of the streams that feed it. */
export class KindTracker {
  readonly kind: WatchedKind;
  readonly ledger = new ObjectLedger();
  private readonly streamStates: (() => StreamState)[] = [];
  private generationValue: bigint;

  /** `generationBase` makes generations increase across restarts (start time × 1000). */
  constructor(kind: WatchedKind, generationBase: bigint) {
    this.kind = kind;
    this.generationValue = generationBase;
  }

  /** The current list generation (the last list started). */
  get generation(): bigint {
    return this.generationValue;
  }

  /** Starts a new list generation and returns it. */
  nextGeneration(): bigint {
    this.generationValue += 1n;
    return this.generationValue;
  }

  /** Registers a stream's state reader. */
  addStream(state: () => StreamState): void {
    this.streamStates.push(state);
  }

  /** Every stream's current state. */
  states(): StreamState[] {
    return this.streamStates.map((s) => s());
  }
}
