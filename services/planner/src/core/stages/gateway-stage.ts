import type { ObjectCondition, ObjectRef, Pool, PoolMember, VirtualService } from '@portolan/desired-state';
import { refKey, sortMembers } from '@portolan/snapshot';
import { planGateways, type GatewayPlan, type GatewayPoolSpec } from '../gateway/gateway-plan.ts';
import {
  readGateway,
  readGatewayClass,
  readHttpRoute,
  readReferenceGrant,
  readTlsRoute,
} from '../gateway/read-objects.ts';
import { serviceKey } from '../incremental/dirty-set.ts';
import type { WorldView } from '../world/world-view.ts';
import type { ListenerStage } from './listener-stage.ts';
import { resolveMembers } from './resolve-members.ts';
import type { PlanPass, Stage, StageContext } from './stage.ts';

/** The largest member weight a weighted pool gets (every driver accepts 1..100). */
const MAX_WEIGHT = 100;

/**
 * Stage 11, the Gateway API: translates the Gateway API objects of the clusters this appliance serves
 * (gateway/gateway-plan.ts) and writes their virtual services, weighted pools, certificates and conditions. The
 * translation is redone whole for the appliance when a Gateway API object, a Namespace or a Secret changed in a
 * served cluster, or the Ingress listeners moved (an address and port belong to one API); an endpoint change
 * re-resolves only the pools of its Service. Keeps the names it wrote, to delete what a new translation drops.
 */
export class GatewayStage implements Stage {
  private readonly ctx: StageContext;
  private readonly ingressListeners: ListenerStage;
  private virtualServices = new Set<string>();
  private certificates = new Set<string>();
  private conditioned = new Map<string, ObjectRef>();
  /** Pool specs by name, with the cluster whose Services feed them. */
  private pools = new Map<string, { spec: GatewayPoolSpec; cluster: string }>();
  /** Pools by the Services (`serviceKey`) that feed them. */
  private poolsByService = new Map<string, Set<string>>();
  /**
   * Whether each Service (`serviceKey`) a route names existed when the routes were last translated: a Service that
   * appears or goes away changes a route's ResolvedRefs and backends, so it redoes the translation.
   */
  private namedServices = new Map<string, { cluster: string; namespace: string; name: string; existed: boolean }>();

  constructor(ctx: StageContext, ingressListeners: ListenerStage) {
    this.ctx = ctx;
    this.ingressListeners = ingressListeners;
  }

  /** Whether a pool of this stage takes members from that Service (`serviceKey`), or a route names it. */
  follows(service: string): boolean {
    return this.poolsByService.has(service) || this.namedServices.has(service);
  }

  run({ world, dirty, work }: PlanPass): void {
    const served = this.servedClusters(world);
    if (
      work.groups.size > 0 ||
      served.some((c) => dirty.gatewayClusters.has(c)) ||
      this.existenceChanged(world, dirty)
    ) {
      this.translate(world, served);
      return;
    }
    if (dirty.services.size === 0 || this.poolsByService.size === 0) return;
    const stale = new Set<string>();
    for (const svc of dirty.services) for (const pool of this.poolsByService.get(svc) ?? []) stale.add(pool);
    for (const name of stale) this.writePool(world, name);
  }

  /** Whether a Service a route names came or went since the last translation. */
  private existenceChanged(world: WorldView, dirty: PlanPass['dirty']): boolean {
    if (this.namedServices.size === 0) return false;
    for (const key of dirty.services) {
      const named = this.namedServices.get(key);
      if (named === undefined) continue;
      if ((world.service(named.cluster, named.namespace, named.name) !== undefined) !== named.existed) return true;
    }
    return false;
  }

  private servedClusters(world: WorldView): string[] {
    const only = this.ctx.profile.clusters;
    return world.clusterNames().filter((c) => this.ctx.clusters.has(c) && (only === null || only.includes(c)));
  }

  private translate(world: WorldView, clusters: readonly string[]): void {
    this.namedServices = new Map();
    const plans = clusters.map((cluster) => ({ cluster, plan: this.planCluster(world, cluster) }));
    const enc = this.ctx.encoder;
    const vs = new Map<string, VirtualService>();
    for (const { plan } of plans) for (const v of plan.virtualServices) if (!vs.has(v.name)) vs.set(v.name, v);
    for (const name of this.virtualServices) if (!vs.has(name)) enc.deleteVirtualService(name);
    for (const v of vs.values()) enc.setVirtualService(v);
    this.virtualServices = new Set(vs.keys());
    const certs = new Set<string>();
    for (const { plan } of plans) for (const c of plan.certificates) if (!certs.has(c.name)) certs.add(c.name);
    for (const name of this.certificates) if (!certs.has(name)) enc.deleteCertificate(name);
    for (const { plan } of plans) for (const c of plan.certificates) enc.setCertificate(c);
    this.certificates = certs;
    this.writePools(world, plans);
    this.writeConditions(plans.flatMap(({ plan }) => plan.conditions));
  }

  private planCluster(world: WorldView, cluster: string): GatewayPlan {
    const secret = (ns: string, name: string) => world.secret(cluster, ns, name);
    return planGateways({
      cluster,
      driver: this.ctx.profile.driver,
      controllers: this.ctx.profile.gatewayControllers,
      classes: [...world.gatewayObjects(cluster, 'GatewayClass')].map(readGatewayClass),
      gateways: [...world.gatewayObjects(cluster, 'Gateway')].map(readGateway),
      routes: [...world.gatewayObjects(cluster, 'HTTPRoute')].map(readHttpRoute),
      tlsRoutes: [...world.gatewayObjects(cluster, 'TLSRoute')].map(readTlsRoute),
      grants: [...world.gatewayObjects(cluster, 'ReferenceGrant')].map(readReferenceGrant),
      namespaceLabels: (ns) => world.namespace(cluster, ns)?.metadata.labels ?? {},
      serviceExists: (ns, name) => {
        const exists = world.service(cluster, ns, name) !== undefined;
        this.namedServices.set(serviceKey(cluster, ns, name), { cluster, namespace: ns, name, existed: exists });
        return exists;
      },
      secretProblem: (ns, name) => {
        const s = secret(ns, name);
        if (s === undefined) return 'not found';
        if (s.type !== 'kubernetes.io/tls') return `type ${s.type} is not kubernetes.io/tls`;
        if (s.tls?.ok === false) return s.tls.reason;
        return s.fingerprint === null ? 'holds no certificate and key' : '';
      },
      secretFingerprint: (ns, name) => secret(ns, name)?.fingerprint ?? '',
      addressPool: this.ctx.profile.gatewayAddresses,
      refusalOf: (ns, name) => world.refusalOf(this.ctx.profile.name, cluster, 'HTTPRoute', ns, name),
      portTaken: (address, port) => this.ingressListeners.listener(`${address}~${port}`) !== undefined,
    });
  }

  private writePools(world: WorldView, plans: readonly { cluster: string; plan: GatewayPlan }[]): void {
    const next = new Map<string, { spec: GatewayPoolSpec; cluster: string }>();
    for (const { cluster, plan } of plans) for (const spec of plan.pools) next.set(spec.name, { spec, cluster });
    for (const name of this.pools.keys()) if (!next.has(name)) this.ctx.encoder.deletePool(name);
    this.pools = next;
    this.poolsByService = new Map();
    for (const [name, { spec, cluster }] of next)
      for (const b of spec.backends) {
        const key = serviceKey(cluster, b.namespace, b.service);
        const set = this.poolsByService.get(key) ?? new Set<string>();
        set.add(name);
        this.poolsByService.set(key, set);
      }
    for (const name of next.keys()) this.writePool(world, name);
  }

  /** Resolves a weighted pool's members and writes it (setPool diffs against what the snapshot holds). */
  private writePool(world: WorldView, name: string): void {
    const held = this.pools.get(name);
    if (held === undefined) return;
    const { spec, cluster } = held;
    const weight = this.ctx.clusters.get(cluster)?.weight ?? 1;
    const resolved = spec.backends.map((b) => ({
      b,
      members: resolveMembers(world, {
        cluster,
        namespace: b.namespace,
        service: b.service,
        port: b.port,
        mode: this.ctx.profile.backendMode,
        weight,
        asksAffinity: false,
      }).members,
    }));
    const pool: Pool = {
      name,
      members: sortMembers(weighted(resolved)),
      monitor: this.ctx.profile.defaultMonitor,
      persistence: null,
      tlsToBackend: false,
      customization: null,
      services: spec.backends
        .map((b): ObjectRef => ({ cluster, kind: 'Service', namespace: b.namespace, name: b.service }))
        .sort((a, b) => (refKey(a) < refKey(b) ? -1 : 1)),
    };
    this.ctx.encoder.setPool(pool);
  }

  private writeConditions(conditions: readonly ObjectCondition[]): void {
    const byObject = new Map<string, { ref: ObjectRef; list: ObjectCondition[] }>();
    for (const c of conditions) {
      const k = refKey(c.object);
      const entry = byObject.get(k) ?? { ref: c.object, list: [] };
      entry.list.push(c);
      byObject.set(k, entry);
    }
    for (const [k, ref] of this.conditioned) if (!byObject.has(k)) this.ctx.encoder.setConditions(ref, []);
    for (const { ref, list } of byObject.values()) this.ctx.encoder.setConditions(ref, list);
    this.conditioned = new Map([...byObject].map(([k, v]) => [k, v.ref]));
  }
}

/**
 * Members weighted so that each backend's share of requests is its weight's share: a backend of weight W with n
 * active members gives each W/n, scaled so the largest member weight is MAX_WEIGHT (every member at least 1), and
 * multiplied by the member's own (cluster) weight. Draining members keep their weight: their state already keeps
 * new requests off them.
 */
function weighted(resolved: readonly { b: GatewayPoolSpec['backends'][number]; members: readonly PoolMember[] }[]) {
  const share = (r: (typeof resolved)[number]): number =>
    r.b.weight / Math.max(1, r.members.filter((m) => m.state === 'active').length);
  const top = Math.max(...resolved.map(share), 1e-9);
  // Two backends naming one Service give its endpoints once, with the weights added.
  const out = new Map<string, PoolMember>();
  for (const r of resolved) {
    const base = (share(r) / top) * MAX_WEIGHT;
    for (const m of r.members) {
      const key = `${m.address}\u0000${m.port}\u0000${m.cluster}`;
      const weight = m.state === 'active' ? Math.max(1, Math.round(base * m.weight)) : m.weight;
      const before = out.get(key);
      out.set(key, { ...m, weight: Math.min(MAX_WEIGHT, weight + (before?.weight ?? 0)) });
    }
  }
  return [...out.values()];
}
