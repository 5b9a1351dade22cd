// Feeding the planner core directly: API objects → the watch events the watcher would publish (trimmed, with the
// uid, resourceVersion and creationTimestamp the API server would have set).
import { fleetConfigSchema, type FleetConfig } from '@portolan/fleet-config';
import { trimObject, type KubeKind, type KubeWatchEvent } from '@portolan/kube-model';
import type { KubeObject } from '@portolan/kube-sim';

/** Cluster name of every benchmark world. */
export const CLUSTER = 'bench';

/** Turns API objects into watch events with increasing resourceVersions, as one API server would. */
export class EventFeed {
  #rv = 1000;

  /** One watch event for `obj` (ADDED the first time a caller says so, MODIFIED otherwise). */
  event(obj: KubeObject, type: 'ADDED' | 'MODIFIED' = 'ADDED'): KubeWatchEvent {
    const rv = String(++this.#rv);
    const meta = obj.metadata as Record<string, unknown>;
    const withMeta = {
      ...obj,
      metadata: {
        ...meta,
        uid: `uid-${String(meta['namespace'] ?? '')}-${String(meta['name'])}`,
        resourceVersion: rv,
        creationTimestamp: '2026-01-01T00:00:00Z',
      },
    };
    const kind = obj.kind as KubeKind;
    const trimmed = trimObject(kind, withMeta);
    if (!trimmed.ok) throw new Error(`cannot trim ${kind}: ${trimmed.message}`);
    return { cluster: CLUSTER, kind, type, object: trimmed.object };
  }
}

/** A fleet config (defaults filled in) with one cluster and the given appliance entries. */
export function benchFleet(appliances: readonly Record<string, unknown>[]): FleetConfig {
  return fleetConfigSchema.parse({
    version: 1,
    clusters: [{ name: CLUSTER }],
    appliances,
    bus: { url: 'nats://unused' },
    store: { url: 'postgres://unused' },
    leases: { redisUrl: 'redis://unused' },
    secrets: { keyFile: 'unused' },
  });
}
