import type { KubeKind, KubeListMarker } from '@portolan/kube-model';
import type { ApplianceConfig, ClusterConfig } from '@portolan/fleet-config';

/** The fleet-config parts the sync gate reads: which clusters each appliance serves. */
export interface SyncScope {
  readonly clusters: readonly Pick<ClusterConfig, 'name'>[];
  readonly appliances: readonly Pick<ApplianceConfig, 'name' | 'clusters'>[];
}

/**
 * The kinds every watcher has followed from the start. A cluster needs all of them listed, and also every other kind
 * (Namespace, the Gateway API) whose watcher has begun listing it: a list marker of the kind has arrived. Archives
 * written before those kinds existed hold no marker of them, so their replay syncs as it did.
 */
const BASE_KINDS: readonly KubeKind[] = ['Ingress', 'IngressClass', 'Service', 'EndpointSlice', 'Secret', 'Node'];

/**
 * Which clusters have completed a full list of every kind (never plan from a partial world). A kind is
 * synced once all chunks of one list-marker generation have arrived; it stays synced (a later failing list leaves
 * the last complete world in place, which is the fail-static behaviour). Mutable: it folds markers as they arrive.
 */
export class SyncTracker {
  private readonly synced = new Map<string, Set<KubeKind>>();
  /** Per cluster, the kinds beyond BASE_KINDS whose list markers have begun to arrive. */
  private readonly begun = new Map<string, Set<KubeKind>>();
  private readonly chunks = new Map<string, Set<number>>();
  private readonly servedBy: ReadonlyMap<string, readonly string[]>;

  constructor(config: SyncScope) {
    const all = config.clusters.map((c) => c.name);
    this.servedBy = new Map(config.appliances.map((a) => [a.name, a.clusters ?? all] as const));
  }

  /** Records one marker chunk. */
  noteMarker(marker: KubeListMarker): void {
    if (!BASE_KINDS.includes(marker.kind)) {
      const begun = this.begun.get(marker.cluster) ?? new Set<KubeKind>();
      begun.add(marker.kind);
      this.begun.set(marker.cluster, begun);
    }
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
    if (kinds === undefined || !BASE_KINDS.every((k) => kinds.has(k))) return false;
    for (const k of this.begun.get(cluster) ?? []) if (!kinds.has(k)) return false;
    return true;
  }

  /** Whether every cluster an appliance serves is synced. */
  isApplianceSynced(appliance: string): boolean {
    return (this.servedBy.get(appliance) ?? []).every((c) => this.isClusterSynced(c));
  }
}
