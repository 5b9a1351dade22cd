import type {
  KubeKind,
  KubeListMarker,
  KubeWatchEvent,
  GatewayKind,
  TrimmedEndpointSlice,
  TrimmedGatewayObject,
  TrimmedIngress,
  TrimmedIngressClass,
  TrimmedNamespace,
  TrimmedNode,
  TrimmedObject,
  TrimmedObjectOf,
  TrimmedSecret,
  TrimmedService,
} from '@portolan/kube-model';
import {
  KUBE_KINDS,
  objectKey,
  parseObjectKey,
  RunningDigest,
  SERVICE_NAME_LABEL,
  trimObject,
  type StateDigest,
} from '@portolan/kube-model';
import { canonicalJson } from '@portolan/desired-state';
import { compareResourceVersions } from './resource-version.ts';
import type { WorldView } from './world-view.ts';
import { HeldRemovals } from './held-removals.ts';
import { completeList, unlistedRemovals, type Entry, type KindState } from './relist.ts';
import { SelectionHolds } from './selection-holds.ts';
import {
  compareHolds,
  holdKey,
  type HeldRemoval,
  type HoldRelease,
  type HoldTransition,
  type RemovalPolicy,
} from './removal-hold.ts';

/** One effective change to the world: what an object was before and is after (null = absent). */
export interface WorldChange {
  readonly cluster: string;
  readonly kind: KubeKind;
  readonly namespace: string;
  readonly name: string;
  readonly before: TrimmedObject | null;
  readonly after: TrimmedObject | null;
}

/**
 * The namespace, name and objectKey an event's raw object claims (null when its name is not a string). Only a hint:
 * trimming decides the real identity, and the key is used only when the trimmed one is the same.
 */
function rawIdentity(object: unknown): { namespace: string; name: string; key: string } | null {
  const meta = (object as { metadata?: { namespace?: unknown; name?: unknown } } | null)?.metadata;
  if (typeof meta?.name !== 'string') return null;
  const namespace = typeof meta.namespace === 'string' ? meta.namespace : '';
  return { namespace, name: meta.name, key: objectKey(namespace, meta.name) };
}

interface ClusterState {
  readonly kinds: Map<KubeKind, KindState>;
  /** namespace/service → EndpointSlice keys (the slice's `kubernetes.io/service-name` label). */
  readonly slicesByService: Map<string, Set<string>>;
  classes: Map<string, TrimmedIngressClass> | null;
}

/**
 * The planner's world: every cluster's objects folded from watch events and list markers. The fold is a
 * last-writer-wins register per key ordered by resourceVersion, with tombstones, so the final state does not
 * depend on delivery order, duplicates or redelivery. A completed list marker deletes what the list lacked unless
 * the object changed after the list. Costs O(1) per event (plus the size of the object). Mutable because it is the
 * fold's state: rebuilding it per event would cost the size of the world.
 */
export class World implements WorldView {
  private readonly clusters = new Map<string, ClusterState>();
  /**
   * Removals the safety rule keeps: their objects stay in `entries`, so they are planned as they were, until an
   * approval, Kubernetes (a DELETED event or the object's return) or a later relist ends it.
   */
  private readonly held = new HeldRemovals();
  /** Ingresses a fleet-config change would drop, kept selected per appliance until approved or changed. */
  private readonly selection = new SelectionHolds((t) => this.held.record(t));
  /** Objects appliances refused (cluster\0kind\0key → appliance → the appliance's message), until the object changes. */
  private readonly refusals = new Map<string, Map<string, string>>();

  /** Folds one watch event; returns the effective change, or null when it changes nothing. */
  apply(event: KubeWatchEvent): WorldChange | null {
    // A delete the watcher inferred from a relist is not Kubernetes' word: the list marker after it removes the
    // object, or holds the removal when the relist lost too much at once.
    if (event.noticedByRelist === true && event.type === 'DELETED') return null;
    // The key as the raw metadata spells it: read before trimming for the EndpointSlice hint, and reused below when
    // trimming kept the same namespace and name (one key string built and hashed per event, not two).
    const raw = rawIdentity(event.object);
    const entries = this.clusters.get(event.cluster)?.kinds.get(event.kind)?.entries;
    const rawEntry = raw !== null ? entries?.get(raw.key) : undefined;
    const hint = event.kind === 'EndpointSlice' ? rawEntry?.object : undefined;
    const trimmed = trimObject(event.kind, event.object, (hint ?? undefined) as TrimmedEndpointSlice | undefined);
    if (!trimmed.ok) return null;
    const obj = trimmed.object;
    const meta = obj.metadata;
    const rv = meta.resourceVersion ?? '';
    const ks = entries === undefined ? this.kind(event.cluster, event.kind) : this.kinds(event.cluster, event.kind);
    const sameKey = raw !== null && raw.name === meta.name && raw.namespace === meta.namespace;
    const key = sameKey ? raw.key : objectKey(meta.namespace, meta.name);
    // The entry looked up under the raw key above is this key's when trimming kept the identity (one lookup, not two).
    const prev = sameKey ? rawEntry : ks.entries.get(key);
    if (prev !== undefined && compareResourceVersions(rv, prev.rv) < 0) return null;
    if (prev === undefined && rv !== '' && ks.floor !== '' && compareResourceVersions(rv, ks.floor) <= 0) return null;
    const deleted = event.type === 'DELETED';
    if (prev !== undefined && rv === prev.rv && rv !== '') {
      if (!deleted || prev.object === null) return null;
    }
    const after = deleted ? null : obj;
    if (
      prev !== undefined &&
      prev.object !== null &&
      after !== null &&
      rv === '' &&
      canonicalJson(prev.object) === canonicalJson(after)
    )
      return null;
    const before = prev?.object ?? null;
    if (this.held.size > 0) this.held.explain(event.cluster, event.kind, key, deleted);
    // A changed object gets another chance on every appliance that refused it.
    if (this.refusals.size > 0) this.refusals.delete(holdKey(event.cluster, event.kind, key));
    if (event.kind === 'Ingress') this.selection.changed(event.cluster, key);
    if (prev === undefined) return this.store(event.cluster, event.kind, key, { rv, object: after }, before, meta);
    // The held register takes the new version: no entry allocated (and kept) per event, no map write.
    prev.rv = rv;
    prev.object = after;
    return this.noted(event.cluster, event.kind, key, before, after, meta);
  }

  /** The existing state of a kind (the caller saw it exist). */
  private kinds(cluster: string, kind: KubeKind): KindState {
    return this.clusters.get(cluster)!.kinds.get(kind)!;
  }

  /**
   * Folds one chunk of a list marker; when its generation is complete, returns the deletions it implies. Lists are
   * ordered by their resourceVersion, not their generation number, so a list older than the newest applied one
   * (a late chunk, a redelivery, another watcher replica) changes nothing.
   */
  applyListMarker(marker: KubeListMarker, policy: RemovalPolicy | null = null): WorldChange[] {
    const ks = this.kind(marker.cluster, marker.kind);
    const list = completeList(ks, marker);
    if (list === null) return [];
    const changes: WorldChange[] = [];
    for (const [key, object] of unlistedRemovals(marker, ks, list, policy, this.held)) {
      const change = this.store(marker.cluster, marker.kind, key, null, object);
      if (change !== null) changes.push(change);
    }
    return changes;
  }

  /**
   * An operator's approval: the held removals of `clusters` (null: every cluster) are carried out now. Returns the
   * effective changes, in a deterministic order (cluster, kind, key).
   */
  approveHolds(clusters: ReadonlySet<string> | null, release: Extract<HoldRelease, { by: 'approval' }>): WorldChange[] {
    const changes: WorldChange[] = [];
    for (const h of this.held.inClusters(clusters)) {
      this.held.release(h.cluster, h.kind, h.key, release, true);
      const entry = this.clusters.get(h.cluster)?.kinds.get(h.kind)?.entries.get(h.key);
      if (entry === undefined || entry.object === null) continue;
      const change = this.store(h.cluster, h.kind, h.key, null, entry.object);
      if (change !== null) changes.push(change);
    }
    return changes;
  }

  /** Records that `appliance` refused these objects; returns those whose refusal is new or changed. */
  refuse(
    appliance: string,
    objects: readonly { cluster: string; kind: KubeKind; namespace: string; name: string; message: string }[],
  ): typeof objects {
    const changed: (typeof objects)[number][] = [];
    for (const o of objects) {
      const k = holdKey(o.cluster, o.kind, objectKey(o.namespace, o.name));
      const byAppliance = this.refusals.get(k) ?? new Map<string, string>();
      if (byAppliance.get(appliance) === o.message) continue;
      this.refusals.set(k, byAppliance.set(appliance, o.message));
      changed.push(o);
    }
    return changed;
  }

  refusalOf(appliance: string, cluster: string, kind: KubeKind, namespace: string, name: string): string | null {
    if (this.refusals.size === 0) return null;
    return this.refusals.get(holdKey(cluster, kind, objectKey(namespace, name)))?.get(appliance) ?? null;
  }

  /** Keeps Ingresses selected on an appliance that its fleet config no longer selects; returns the newly held. */
  holdSelection(
    appliance: string,
    ingresses: readonly { cluster: string; namespace: string; name: string }[],
    reason: string,
    sinceMs: number,
  ): HeldRemoval[] {
    const exists = (i: { cluster: string; namespace: string; name: string }): boolean =>
      this.get(i.cluster, 'Ingress', i.namespace, i.name) !== undefined;
    return this.selection.hold(appliance, ingresses.filter(exists), reason, sinceMs);
  }

  /** Ends an appliance's selection holds (an approval); returns the Ingresses that were held. */
  approveSelection(appliance: string, release: Extract<HoldRelease, { by: 'approval' }>): HeldRemoval[] {
    return this.selection.approve(appliance, release);
  }

  selectionHeldFor(appliance: string, cluster: string, namespace: string, name: string): string | null {
    return this.selection.heldFor(appliance, cluster, namespace, name);
  }

  /** The removals held now, sorted by cluster, kind and key. */
  heldRemovals(): HeldRemoval[] {
    return [...this.held.values(), ...this.selection.all()].sort(compareHolds);
  }

  /** The holds begun and ended since the last call (for the store's record of them). */
  takeHoldTransitions(): HoldTransition[] {
    return this.held.take();
  }

  private store(
    cluster: string,
    kind: KubeKind,
    key: string,
    entry: Entry | null,
    before: TrimmedObject | null,
    id: { namespace: string; name: string } = parseObjectKey(key),
  ): WorldChange | null {
    const ks = this.kind(cluster, kind);
    if (entry === null) ks.entries.delete(key);
    else ks.entries.set(key, entry);
    return this.noted(cluster, kind, key, before, entry?.object ?? null, id);
  }

  /** Keeps the indexes up to date with a key's new version; returns the change (null when both are absent). */
  private noted(
    cluster: string,
    kind: KubeKind,
    key: string,
    before: TrimmedObject | null,
    after: TrimmedObject | null,
    id: { namespace: string; name: string },
  ): WorldChange | null {
    const cs = this.cluster(cluster);
    const { namespace, name } = id;
    if (kind === 'EndpointSlice')
      this.indexSlice(cs, key, before as TrimmedEndpointSlice | null, after as TrimmedEndpointSlice | null);
    if (kind === 'IngressClass') cs.classes = null;
    if (before === null && after === null) return null;
    return { cluster, kind, namespace, name, before, after };
  }

  private indexSlice(
    cs: ClusterState,
    key: string,
    before: TrimmedEndpointSlice | null,
    after: TrimmedEndpointSlice | null,
  ): void {
    const oldSvc = before?.metadata.labels?.[SERVICE_NAME_LABEL];
    const nowSvc = after?.metadata.labels?.[SERVICE_NAME_LABEL];
    // The usual change keeps the slice's Service: compared in place, no key strings built.
    if (oldSvc === nowSvc && (oldSvc === undefined || before!.metadata.namespace === after!.metadata.namespace)) return;
    const svcOf = (s: TrimmedEndpointSlice | null, svc: string | undefined): string | null =>
      s === null || svc === undefined ? null : `${s.metadata.namespace}/${svc}`;
    const old = svcOf(before, oldSvc);
    const now = svcOf(after, nowSvc);
    if (old !== null) {
      const set = cs.slicesByService.get(old);
      set?.delete(key);
      if (set?.size === 0) cs.slicesByService.delete(old);
    }
    if (now !== null) cs.slicesByService.set(now, (cs.slicesByService.get(now) ?? new Set()).add(key));
  }

  private cluster(name: string): ClusterState {
    let cs = this.clusters.get(name);
    if (cs === undefined) {
      cs = { kinds: new Map(), slicesByService: new Map(), classes: null };
      this.clusters.set(name, cs);
    }
    return cs;
  }

  private kind(cluster: string, kind: KubeKind): KindState {
    const cs = this.cluster(cluster);
    let ks = cs.kinds.get(kind);
    if (ks === undefined) {
      ks = { entries: new Map(), floor: '', pending: new Map() };
      cs.kinds.set(kind, ks);
    }
    return ks;
  }

  /** One object by identity. */
  get<K extends KubeKind>(cluster: string, kind: K, namespace: string, name: string): TrimmedObjectOf<K> | undefined {
    const o = this.clusters.get(cluster)?.kinds.get(kind)?.entries.get(objectKey(namespace, name))?.object;
    return (o ?? undefined) as TrimmedObjectOf<K> | undefined;
  }

  /** Every live object of a kind in a cluster (insertion order: callers needing an order sort). */
  *list<K extends KubeKind>(cluster: string, kind: K): Iterable<TrimmedObjectOf<K>> {
    const entries = this.clusters.get(cluster)?.kinds.get(kind)?.entries;
    if (entries === undefined) return;
    for (const e of entries.values()) if (e.object !== null) yield e.object as TrimmedObjectOf<K>;
  }

  /**
   * The digest of one kind's live objects in a cluster, as the watchers compute theirs (key and resourceVersion of
   * each). Objects kept only by the safety rule's hold are left out: the watchers have already let them go. O(n) in
   * the kind's objects, so callers ask for it seldom.
   */
  stateDigest(cluster: string, kind: KubeKind): StateDigest {
    const digest = new RunningDigest();
    const entries = this.clusters.get(cluster)?.kinds.get(kind)?.entries;
    if (entries === undefined) return digest;
    const anyHeld = this.held.size > 0;
    for (const [key, e] of entries) {
      if (e.object === null || (anyHeld && this.held.holdOf(cluster, kind, key) !== undefined)) continue;
      digest.add(key, e.rv);
    }
    return { digest: digest.digest, count: digest.count };
  }

  /** Number of live objects per kind, over all clusters. */
  counts(): Record<KubeKind, number> {
    const out = Object.fromEntries(KUBE_KINDS.map((k) => [k, 0])) as Record<KubeKind, number>;
    for (const cs of this.clusters.values())
      for (const [k, ks] of cs.kinds) for (const e of ks.entries.values()) if (e.object !== null) out[k]++;
    return out;
  }

  clusterNames(): readonly string[] {
    return [...this.clusters.keys()].sort();
  }

  ingresses(cluster: string): Iterable<TrimmedIngress> {
    return this.list(cluster, 'Ingress');
  }

  ingress(cluster: string, namespace: string, name: string): TrimmedIngress | undefined {
    return this.get(cluster, 'Ingress', namespace, name);
  }

  ingressClasses(cluster: string): ReadonlyMap<string, TrimmedIngressClass> {
    const cs = this.clusters.get(cluster);
    if (cs === undefined) return new Map();
    cs.classes ??= new Map([...this.list(cluster, 'IngressClass')].map((c) => [c.metadata.name, c] as const));
    return cs.classes;
  }

  services(cluster: string): Iterable<TrimmedService> {
    return this.list(cluster, 'Service');
  }

  service(cluster: string, namespace: string, name: string): TrimmedService | undefined {
    return this.get(cluster, 'Service', namespace, name);
  }

  slicesOfService(cluster: string, namespace: string, service: string): TrimmedEndpointSlice[] {
    const cs = this.clusters.get(cluster);
    const keys = cs?.slicesByService.get(`${namespace}/${service}`);
    const out: TrimmedEndpointSlice[] = [];
    if (cs === undefined || keys === undefined) return out;
    const entries = cs.kinds.get('EndpointSlice')!.entries;
    for (const k of keys) {
      const o = entries.get(k)?.object;
      if (o) out.push(o as TrimmedEndpointSlice);
    }
    return out;
  }

  secret(cluster: string, namespace: string, name: string): TrimmedSecret | undefined {
    return this.get(cluster, 'Secret', namespace, name);
  }

  nodes(cluster: string): Iterable<TrimmedNode> {
    return this.list(cluster, 'Node');
  }

  gatewayObjects<K extends GatewayKind>(cluster: string, kind: K): Iterable<TrimmedGatewayObject<K>> {
    return this.list(cluster, kind) as Iterable<TrimmedGatewayObject<K>>;
  }

  namespace(cluster: string, name: string): TrimmedNamespace | undefined {
    return this.get(cluster, 'Namespace', '', name);
  }
}
