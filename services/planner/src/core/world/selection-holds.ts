import { objectKey } from '@portolan/kube-model';
import type { HeldRemoval, HoldRelease, HoldTransition } from './removal-hold.ts';

/**
 * Ingresses a fleet-config change would stop serving on an appliance, kept selected there by the safety rule: per
 * appliance, until an operator approves (then they go) or Kubernetes changes the Ingress (then the new config
 * decides). Every hold begun or ended is reported to `record`, as the world's other holds are. Mutable: part of the
 * world's fold state.
 */
export class SelectionHolds {
  readonly #holds = new Map<string, Map<string, HeldRemoval>>();
  readonly #record: (t: HoldTransition) => void;

  constructor(record: (t: HoldTransition) => void) {
    this.#record = record;
  }

  /** Holds these Ingresses on `appliance`; returns the newly held. */
  hold(
    appliance: string,
    ingresses: readonly { cluster: string; namespace: string; name: string }[],
    reason: string,
    sinceMs: number,
  ): HeldRemoval[] {
    const holds = this.#holds.get(appliance) ?? new Map<string, HeldRemoval>();
    this.#holds.set(appliance, holds);
    const added: HeldRemoval[] = [];
    for (const i of ingresses) {
      const key = objectKey(i.namespace, i.name);
      const k = `${i.cluster}\u0000${key}`;
      if (holds.has(k)) continue;
      const hold: HeldRemoval = { cluster: i.cluster, kind: 'Ingress', key, sinceMs, reason };
      holds.set(k, hold);
      this.#record({ type: 'held', hold });
      added.push(hold);
    }
    return added;
  }

  /** An approval: every hold of `appliance` ends and its Ingresses go. */
  approve(appliance: string, release: Extract<HoldRelease, { by: 'approval' }>): HeldRemoval[] {
    const holds = this.#holds.get(appliance);
    if (holds === undefined) return [];
    this.#holds.delete(appliance);
    const ended = [...holds.values()].sort((a, b) => (`${a.cluster}/${a.key}` < `${b.cluster}/${b.key}` ? -1 : 1));
    for (const hold of ended) this.#record({ type: 'released', hold, release, removed: true });
    return ended;
  }

  /** Kubernetes changed an Ingress: its holds end on every appliance (the config in force decides again). */
  changed(cluster: string, key: string): void {
    if (this.#holds.size === 0) return;
    const k = `${cluster}\u0000${key}`;
    for (const holds of this.#holds.values()) {
      const hold = holds.get(k);
      if (hold === undefined) continue;
      holds.delete(k);
      this.#record({
        type: 'released',
        hold,
        release: { by: 'kubernetes', reason: 'Kubernetes changed the Ingress' },
        removed: false,
      });
    }
  }

  /** The hold's reason when `appliance` keeps this Ingress selected, else null. */
  heldFor(appliance: string, cluster: string, namespace: string, name: string): string | null {
    if (this.#holds.size === 0) return null;
    return this.#holds.get(appliance)?.get(`${cluster}\u0000${objectKey(namespace, name)}`)?.reason ?? null;
  }

  /** Every hold in force. */
  all(): HeldRemoval[] {
    return [...this.#holds.values()].flatMap((m) => [...m.values()]);
  }
}
