import type { DesiredState } from '@portolan/desired-state';
import { PortolanError } from '@portolan/errors';
import type { ApplianceConfig, ClusterConfig } from '@portolan/fleet-config';
import type { KubeListMarker, KubeWatchEvent, TrimmedIngress, TrimmedIngressClass } from '@portolan/kube-model';
import { worldKeyString, SERVICE_NAME_LABEL } from '@portolan/kube-model';
import { clusterProfilesOf, profileFromConfig } from './translate/appliance-profile.ts';
import { createEngine, type PlanEngine } from './stages/plan-engine.ts';
import { serviceKey, type DirtyIngress } from './incremental/dirty-set.ts';
import { EngineSet, type PlanFailure } from './engine-set.ts';
import { gatewayNamesSecret } from './gateway/read-objects.ts';
import { classRequestOf, isDefaultClass } from './translate/select-ingress.ts';
import { CURRENT_LAYOUT, type SnapshotLayout } from '@portolan/snapshot';
import { World, type WorldChange } from './world/world.ts';
import {
  removalPolicyOf,
  strictestPolicy,
  type HeldRemoval,
  type HoldTransition,
  type RemovalPolicy,
} from './world/removal-hold.ts';
import type { ApplianceRefusal, HoldApproval, SelectionHold } from './world/decode-bus-message.ts';

/** Version of the planning rules; recorded with every snapshot (a change here explains hash differences on replay). */
export const PLANNER_VERSION = '0.3.0';

/** The fleet-config parts the planner reads. */
export interface PlannerConfig {
  readonly clusters: readonly ClusterConfig[];
  readonly appliances: readonly ApplianceConfig[];
}

/** One appliance whose snapshot changed. */
export interface PlannedAppliance {
  readonly appliance: string;
  /** The snapshot's content hash (root piece id). */
  readonly root: string;
  /** Pieces new since this appliance's previous plan (id → canonical JSON bytes); store with ON CONFLICT DO NOTHING. */
  readonly pieces: ReadonlyMap<string, Uint8Array>;
  /** Materialises the desired state (O(size)); valid until the next event is applied. */
  readonly desired: DesiredState;
}

/** Creates an appliance's engine (the planner's own by default; tests wrap it). */
export type EngineFactory = typeof createEngine;

/** The desired state of a plan was read after the planner moved on (a bug in the caller). */
export class StalePlanError extends PortolanError {
  readonly code = 'PLANNER_STALE_PLAN';
  constructor(appliance: string) {
    super(`the plan of ${appliance} was read after later events were applied; read it right after planDirty()`);
  }
}

interface Deps {
  readonly classKey: string | null;
  readonly cluster: string;
  readonly secrets: readonly string[];
}

/**
 * The planner's pure core as a state object: fold events (`applyEvent`, `applyListMarker`), then `planDirty()`
 * plans only the appliances affected since the last call, only as far as the change reaches
 * (EndpointSlice → Service → pools; Ingress/IngressClass/Secret → that Ingress's claims). Deterministic: the same
 * events in any order, duplicated or redelivered, give the same roots. No clock, no I/O. Mutable on purpose: it
 * holds the folded world and each appliance's engine between events, which is what makes a plan cost its change.
 */
export class Planner {
  readonly world = new World();
  private readonly engines: EngineSet;
  private readonly deps = new Map<string, Deps>();
  private readonly byClass = new Map<string, Set<string>>();
  private readonly classless = new Map<string, Set<string>>();
  private readonly bySecret = new Map<string, Set<string>>();
  private readonly dirtyIngresses = new Map<string, DirtyIngress>();
  private readonly dirtyServices = new Set<string>();
  private readonly dirtyNodes = new Set<string>();
  private readonly dirtyGateways = new Set<string>();
  private version = 0;
  /** Per cluster: the safety rule's limits (the strictest of the appliances serving it; null when none does). */
  private readonly policies = new Map<string, RemovalPolicy | null>();
  /** Per appliance: the clusters it serves (what its approval releases). */
  private readonly servedClusters = new Map<string, ReadonlySet<string>>();

  /**
   * `layout`: the snapshot layout to encode in (replay passes the one a stored snapshot was made with);
   * `keepsPieces: false`: plans carry their roots and no pieces (replay proves hashes and stores nothing).
   */
  constructor(
    config: PlannerConfig,
    options: {
      readonly layout?: SnapshotLayout;
      readonly createEngine?: EngineFactory;
      readonly keepsPieces?: boolean;
    } = {},
  ) {
    const layout = options.layout ?? CURRENT_LAYOUT;
    const clusters = clusterProfilesOf(config.clusters);
    for (const a of config.appliances)
      this.servedClusters.set(a.name, new Set(a.clusters ?? config.clusters.map((c) => c.name)));
    for (const c of config.clusters) {
      const serving = config.appliances.filter((a) => this.servedClusters.get(a.name)!.has(c.name));
      this.policies.set(c.name, strictestPolicy(serving.map((a) => removalPolicyOf(a))));
    }
    const make = options.createEngine ?? createEngine;
    const appliances = [...config.appliances].sort((a, b) => (a.name < b.name ? -1 : 1));
    const encoding = { keepsPieces: options.keepsPieces ?? true };
    this.engines = new EngineSet(appliances.length, (i) =>
      make(profileFromConfig(appliances[i]!), clusters, layout, encoding),
    );
  }

  /** Folds one watch event; true when it changed the world. */
  applyEvent(event: KubeWatchEvent): boolean {
    const change = this.world.apply(event);
    if (change !== null) this.note(change);
    return change !== null;
  }

  /** Folds one list-marker chunk; returns how many objects it deleted (0 until the generation is complete). */
  applyListMarker(marker: KubeListMarker): number {
    const changes = this.world.applyListMarker(marker, this.policies.get(marker.cluster) ?? null);
    for (const c of changes) this.note(c);
    return changes.length;
  }

  /**
   * Folds an operator's approval: the removals held in the clusters the appliance serves are carried out. Returns how
   * many objects it removed (0 for an unknown appliance or when nothing is held).
   */
  approveHolds(approval: HoldApproval): number {
    const clusters = this.servedClusters.get(approval.appliance);
    if (clusters === undefined) return 0;
    const release = {
      by: 'approval' as const,
      approvedBy: approval.approvedBy,
      reason: approval.reason,
      approvalId: approval.approvalId,
    };
    const changes = this.world.approveHolds(clusters, release);
    for (const c of changes) this.note(c);
    const deselected = this.world.approveSelection(approval.appliance, release);
    this.markHeldIngresses(deselected);
    return changes.length + deselected.length;
  }

  /**
   * Folds an appliance's refusal: the objects are left out of that appliance's plan (a Rejected condition on an
   * Ingress; a Secret's certificate is dropped with a condition on the Ingresses using it) until they change.
   */
  refuseObjects(refusal: ApplianceRefusal): number {
    if (!this.servedClusters.has(refusal.appliance)) return 0;
    const changed = this.world.refuse(refusal.appliance, refusal.objects);
    for (const o of changed) {
      this.version++;
      if (o.kind === 'Ingress')
        this.markIngress(worldKeyString({ cluster: o.cluster, kind: 'Ingress', namespace: o.namespace, name: o.name }));
      else if (o.kind === 'HTTPRoute') this.dirtyGateways.add(o.cluster);
      else for (const k of this.bySecret.get(serviceKey(o.cluster, o.namespace, o.name)) ?? []) this.markIngress(k);
    }
    return changed.length;
  }

  /** Folds a selection hold: these Ingresses stay served on the appliance although its fleet config dropped them. */
  holdSelection(held: SelectionHold, sinceMs: number): number {
    if (!this.servedClusters.has(held.appliance)) return 0;
    const added = this.world.holdSelection(held.appliance, held.ingresses, held.reason, sinceMs);
    this.markHeldIngresses(added);
    return added.length;
  }

  private markHeldIngresses(holds: readonly HeldRemoval[]): void {
    for (const h of holds) {
      this.version++;
      const [namespace = '', name = ''] = h.key.split('/');
      this.markIngress(worldKeyString({ cluster: h.cluster, kind: 'Ingress', namespace, name }));
    }
  }

  /** The removals the safety rule holds now. */
  heldRemovals(): HeldRemoval[] {
    return this.world.heldRemovals();
  }

  /** Holds begun and ended since the last call. */
  takeHoldTransitions(): HoldTransition[] {
    return this.world.takeHoldTransitions();
  }

  /** The appliances serving a cluster (whose desired state a hold in it keeps). */
  appliancesServing(cluster: string): string[] {
    return [...this.servedClusters]
      .filter(([, clusters]) => clusters.has(cluster))
      .map(([name]) => name)
      .sort();
  }

  /** Whether events are waiting to be planned. */
  get hasDirty(): boolean {
    return this.dirtyIngresses.size + this.dirtyServices.size + this.dirtyNodes.size + this.dirtyGateways.size > 0;
  }

  /** Plans what changed since the last call; returns only appliances whose snapshot root changed. */
  planDirty(): PlannedAppliance[] {
    // One set of dirty collections serves every plan (engines read them during plan() and keep nothing).
    const dirty = {
      ingresses: this.dirtyIngresses,
      services: this.dirtyServices,
      nodeClusters: this.dirtyNodes,
      gatewayClusters: this.dirtyGateways,
    };
    this.version++;
    try {
      return this.engines
        .plan(this.world, dirty)
        .filter((p) => p.result.changed)
        .map((p) => new Plan(this, p.engine, this.version, p.result.root, p.result.bytes));
    } finally {
      if (this.dirtyIngresses.size > 0) this.dirtyIngresses.clear();
      if (this.dirtyServices.size > 0) this.dirtyServices.clear();
      if (this.dirtyNodes.size > 0) this.dirtyNodes.clear();
      if (this.dirtyGateways.size > 0) this.dirtyGateways.clear();
    }
  }

  /** Whether the appliance's last plan threw and none has succeeded since (see `EngineSet`). */
  planFailing(appliance: string): boolean {
    return this.engines.failing(appliance);
  }

  /** The plans that threw since the last call, oldest first (see `EngineSet`). */
  takePlanFailures(): readonly PlanFailure[] {
    return this.engines.takeFailures();
  }

  /** The desired state of a plan made at `version` (the plan's `desired`): only while no event came since. */
  readPlanned(engine: PlanEngine, version: number): DesiredState {
    if (version !== this.version) throw new StalePlanError(engine.profile.name);
    return engine.encoder.toDesiredState();
  }

  /** The current desired state of one appliance (O(size)); null for an unknown appliance. */
  desiredState(appliance: string): DesiredState | null {
    return this.engines.find(appliance)?.encoder.toDesiredState() ?? null;
  }

  /** The snapshot root of one appliance as of the last planDirty (null before the first plan or if unknown). */
  rootOf(appliance: string): string | null {
    return this.engines.find(appliance)?.encoder.root ?? null;
  }

  /** Appliance names, sorted. */
  get appliances(): readonly string[] {
    return this.engines.all.map((e) => e.profile.name);
  }

  private note(c: WorldChange): void {
    this.version++;
    switch (c.kind) {
      case 'Ingress':
        this.noteIngress(c);
        break;
      case 'IngressClass':
        this.noteClass(c);
        break;
      case 'Secret':
        for (const k of this.bySecret.get(serviceKey(c.cluster, c.namespace, c.name)) ?? []) this.markIngress(k);
        // Only a Secret a Gateway listener names changes the Gateway translation (certificate rotation elsewhere
        // must not redo every route of the cluster).
        for (const gw of this.world.gatewayObjects(c.cluster, 'Gateway'))
          if (gatewayNamesSecret(gw, c.namespace, c.name)) {
            this.dirtyGateways.add(c.cluster);
            break;
          }
        break;
      case 'Service':
        this.dirtyServices.add(serviceKey(c.cluster, c.namespace, c.name));
        break;
      case 'EndpointSlice': {
        const before = c.before?.metadata.labels?.[SERVICE_NAME_LABEL];
        const after = c.after?.metadata.labels?.[SERVICE_NAME_LABEL];
        if (before !== undefined) this.dirtyServices.add(serviceKey(c.cluster, c.namespace, before));
        if (after !== undefined && after !== before) this.dirtyServices.add(serviceKey(c.cluster, c.namespace, after));
        break;
      }
      case 'Node':
        this.dirtyNodes.add(c.cluster);
        break;
      default:
        // Namespace and the Gateway API kinds: the cluster's Gateway translation is redone.
        this.dirtyGateways.add(c.cluster);
    }
  }

  private noteIngress(c: WorldChange): void {
    const key = worldKeyString({ cluster: c.cluster, kind: 'Ingress', namespace: c.namespace, name: c.name });
    this.dirtyIngresses.set(key, { cluster: c.cluster, namespace: c.namespace, name: c.name });
    const old = this.deps.get(key);
    if (old !== undefined) {
      unindex(old.classKey === null ? this.classless : this.byClass, old.classKey ?? old.cluster, key);
      for (const s of old.secrets) unindex(this.bySecret, s, key);
      this.deps.delete(key);
    }
    const ing = c.after as TrimmedIngress | null;
    if (ing === null) return;
    const request = classRequestOf(ing);
    const deps: Deps = {
      cluster: c.cluster,
      classKey: request.by === 'default' ? null : `${c.cluster}\u0000${request.name}`,
      secrets: [
        ...new Set(
          (ing.spec.tls ?? []).flatMap((t) => (t.secretName ? [serviceKey(c.cluster, c.namespace, t.secretName)] : [])),
        ),
      ],
    };
    this.deps.set(key, deps);
    index(deps.classKey === null ? this.classless : this.byClass, deps.classKey ?? deps.cluster, key);
    for (const s of deps.secrets) index(this.bySecret, s, key);
  }

  private noteClass(c: WorldChange): void {
    for (const k of this.byClass.get(`${c.cluster}\u0000${c.name}`) ?? []) this.markIngress(k);
    const wasDefault = c.before !== null && isDefaultClass(c.before as TrimmedIngressClass);
    const isDefault = c.after !== null && isDefaultClass(c.after as TrimmedIngressClass);
    if (wasDefault || isDefault) for (const k of this.classless.get(c.cluster) ?? []) this.markIngress(k);
  }

  private markIngress(key: string): void {
    const [cluster = '', , namespace = '', name = ''] = key.split('/');
    this.dirtyIngresses.set(key, { cluster, namespace, name });
  }
}

/** One appliance's plan; `desired` is read through the planner, which knows whether later events made it stale. */
class Plan implements PlannedAppliance {
  readonly appliance: string;
  readonly root: string;
  readonly pieces: ReadonlyMap<string, Uint8Array>;
  private readonly planner: Planner;
  private readonly engine: PlanEngine;
  private readonly version: number;

  constructor(
    planner: Planner,
    engine: PlanEngine,
    version: number,
    root: string,
    pieces: ReadonlyMap<string, Uint8Array>,
  ) {
    this.appliance = engine.profile.name;
    this.planner = planner;
    this.engine = engine;
    this.version = version;
    this.root = root;
    this.pieces = pieces;
  }

  get desired(): DesiredState {
    return this.planner.readPlanned(this.engine, this.version);
  }
}

function index(m: Map<string, Set<string>>, k: string, v: string): void {
  let s = m.get(k);
  if (s === undefined) m.set(k, (s = new Set()));
  s.add(v);
}

function unindex(m: Map<string, Set<string>>, k: string, v: string): void {
  const s = m.get(k);
  s?.delete(v);
  if (s?.size === 0) m.delete(k);
}
