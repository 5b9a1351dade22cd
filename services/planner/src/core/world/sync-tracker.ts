import type { KubeKind, KubeListMarker } from '@portolan/kube-model';
import { KUBE_KINDS } from '@portolan/kube-model';
import type { ApplianceConfig, ClusterConfig } from '@portolan/fleet-config';

/** The fleet-config parts the sync gate reads: which clusters each appliance serves. */
export interface SyncScope {
  readonly clusters: readonly Pick<ClusterConfig, 'name'>[];
  readonly appliances: readonly Pick<ApplianceConfig, 'name' | 'clusters'>[];
}

/**
 * Which clusters have completed a full list of every kind (never plan from a partial world). A kind is
 * synced once all chunks of one list-marker generation have arrived; it stays synced (a later failing list leaves
 * the last complete world in place, which is the fail-static behaviour). Mutable: it folds markers as they arrive.
 */
export class SyncTracker {
  private readonly synced = new Map<string, Set<KubeKind>>();
  private readonly chunks = new Map<string, Set<number>>();
  private readonly servedBy: ReadonlyMap<string, readonly string[]>;

  constructor(config: SyncScope) {
    const all = config.clusters.map((c) => c.name);
    this.servedBy = new Map(config.appliances.map((a) => [a.name, a.clusters ?? all] as const));
  }

  /** Records one marker chunk. */
  noteMarker(marker: KubeListMarker): void {
    const key = `${marker.cluster}/${marker.kind}/${marker.generation}`;
    const seen = this.chunks.get(key) ?? new Set<number>();
    seen.add(marker.chunkIndex);
    this.chunks.set(key, seen);
    if (seen.size < marker.chunkCount) return;
    this.chunks.delete(key);
    const kinds = this.synced.get(marker.cluster) ?? new Set<KubeKind>();
    kinds.add(marker.kind);
    this.synced.set(marker.cluster, kinds);
  }

  /** Whether a cluster has completed a list of every kind. */
  isClusterSynced(cluster: string): boolean {
    const kinds = this.synced.get(cluster);
    return kinds !== undefined && KUBE_KINDS.every((k) => kinds.has(k));
  }

  /** Whether every cluster an appliance serves is synced. */
  isApplianceSynced(appliance: string): boolean {
    return (this.servedBy.get(appliance) ?? []).every((c) => this.isClusterSynced(c));
  }
}
