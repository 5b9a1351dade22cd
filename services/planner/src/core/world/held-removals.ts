import type { KubeKind } from '@portolan/kube-model';
import { compareHolds, holdKey, type HeldRemoval, type HoldRelease, type HoldTransition } from './removal-hold.ts';

/**
 * The removals the safety rule holds (their objects stay in the world, so they are planned as they were), and every
 * hold begun or ended since the last `take()`. Mutable: part of the world's fold state.
 */
export class HeldRemovals {
  readonly #held = new Map<string, HeldRemoval>();
  #transitions: HoldTransition[] = [];

  /** How many removals are held (0 lets the fold skip every hold check). */
  get size(): number {
    return this.#held.size;
  }

  /** The hold on one object, if any. */
  holdOf(cluster: string, kind: KubeKind, key: string): HeldRemoval | undefined {
    return this.#held.get(holdKey(cluster, kind, key));
  }

  /** Begins a hold. */
  hold(h: HeldRemoval): void {
    this.#held.set(holdKey(h.cluster, h.kind, h.key), h);
    this.#transitions.push({ type: 'held', hold: h });
  }

  /** Ends the hold on one object, if any; `removed`: whether the object goes with it. */
  release(cluster: string, kind: KubeKind, key: string, release: HoldRelease, removed: boolean): void {
    const k = holdKey(cluster, kind, key);
    const hold = this.#held.get(k);
    if (hold === undefined) return;
    this.#held.delete(k);
    this.#transitions.push({ type: 'released', hold, release, removed });
  }

  /** Kubernetes spoke about a held object (deleted it, or reported it again): its hold ends. */
  explain(cluster: string, kind: KubeKind, key: string, deleted: boolean): void {
    const reason = deleted ? 'Kubernetes deleted it (a DELETED event)' : 'Kubernetes reported it again';
    this.release(cluster, kind, key, { by: 'kubernetes', reason }, deleted);
  }

  /** Records a transition of a hold kept elsewhere (selection holds), in fold order with these. */
  record(t: HoldTransition): void {
    this.#transitions.push(t);
  }

  /** The holds in `clusters` (null: all), sorted by cluster, kind and key. */
  inClusters(clusters: ReadonlySet<string> | null): HeldRemoval[] {
    return [...this.#held.values()].filter((h) => clusters === null || clusters.has(h.cluster)).sort(compareHolds);
  }

  /** Every hold, unsorted. */
  values(): Iterable<HeldRemoval> {
    return this.#held.values();
  }

  /** The transitions since the last call. */
  take(): HoldTransition[] {
    const out = this.#transitions;
    if (out.length > 0) this.#transitions = [];
    return out;
  }
}
