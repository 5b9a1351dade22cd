import {
  CURRENT_LAYOUT,
  SnapshotEncoder,
  type EncodedSnapshot,
  type SnapshotLayout,
  type EncoderOptions,
} from '@portolan/snapshot';
import { ClaimIndex } from '../incremental/claim-index.ts';
import type { DirtySet } from '../incremental/dirty-set.ts';
import type { ApplianceProfile, ClusterProfile } from '../translate/appliance-profile.ts';
import type { WorldView } from '../world/world-view.ts';
import { CertificateStage } from './certificate-stage.ts';
import { ClaimStage } from './claim-stage.ts';
import { ConditionStage } from './condition-stage.ts';
import { DefaultBackendStage } from './default-backend-stage.ts';
import { GatewayStage } from './gateway-stage.ts';
import { IntentStage } from './intent-stage.ts';
import { ListenerStage } from './listener-stage.ts';
import { PlanWork } from './plan-work.ts';
import { PoolStage } from './pool-stage.ts';
import { RouteStage } from './route-stage.ts';
import type { Stage, StageContext } from './stage.ts';
import { TlsStage } from './tls-stage.ts';
import { VirtualServiceStage } from './virtual-service-stage.ts';

/**
 * Plans one appliance in Ingress mode by running its stages in order over what changed: intents → listeners →
 * claims → routes → default backends → TLS → virtual services → certificates → pools → conditions → the Gateway
 * API (whose listeners keep off the addresses and ports Ingress listeners hold). Each stage keeps
 * its own indexes, so an event revisits only what depends on it (an endpoint change re-resolves the pools of its
 * Service; an Ingress edit re-claims its own routes; a contest is decided again only when a claim on it changes).
 * Output goes straight to a SnapshotEncoder, so a commit costs the size of the change. A new engine fed the whole
 * world as one change is the from-scratch plan (plan-from-scratch.ts). Mutable: its stages' indexes are an
 * incremental engine's cache, kept from one plan to the next.
 */
export class ApplianceEngine {
  readonly profile: ApplianceProfile;
  readonly encoder: SnapshotEncoder;
  private readonly stages: readonly Stage[];
  private readonly pools: PoolStage;
  private readonly gateways: GatewayStage;
  /** Reused by every plan (the stages' work lists), so an endpoint change allocates none of its collections. */
  private readonly work = new PlanWork();

  constructor(
    profile: ApplianceProfile,
    clusters: ReadonlyMap<string, ClusterProfile>,
    layout: SnapshotLayout = CURRENT_LAYOUT,
    options: EncoderOptions = {},
  ) {
    this.profile = profile;
    this.encoder = new SnapshotEncoder(profile.name, profile.driver, layout, options);
    const ctx: StageContext = { profile, clusters, encoder: this.encoder, claims: new ClaimIndex() };
    const intents = new IntentStage(ctx);
    const listeners = new ListenerStage(ctx, intents);
    const defaults = new DefaultBackendStage(ctx);
    const tls = new TlsStage(ctx);
    this.pools = new PoolStage(ctx);
    this.gateways = new GatewayStage(ctx, listeners);
    // The order is the data flow: a stage reads only what the stages before it decided in this pass.
    this.stages = [
      intents,
      listeners,
      new ClaimStage(intents, listeners),
      new RouteStage(ctx, listeners),
      defaults,
      tls,
      new VirtualServiceStage(ctx, listeners, defaults, tls),
      new CertificateStage(ctx, tls),
      this.pools,
      new ConditionStage(ctx, intents, listeners, this.pools),
      this.gateways,
    ];
  }

  /** Whether a dirty set can change this appliance at all (cheap: lets the planner skip untouched appliances). */
  isAffected(dirty: DirtySet): boolean {
    if (this.encoder.root === null || dirty.ingresses.size > 0 || dirty.gatewayClusters.size > 0) return true;
    if (this.profile.backendMode === 'nodeport' && dirty.nodeClusters.size > 0) return true;
    for (const svc of dirty.services) if (this.pools.follows(svc) || this.gateways.follows(svc)) return true;
    return false;
  }

  /** Runs the stages over what changed and commits: the new root, the new pieces, and whether the snapshot changed. */
  plan(world: WorldView, dirty: DirtySet): EncodedSnapshot & { readonly changed: boolean } {
    const work = this.work;
    work.clear();
    const pass = { world, dirty, work };
    for (const stage of this.stages) stage.run(pass);
    const out = this.encoder.commit();
    work.clear();
    return out;
  }
}
