import {
  isNamespaceInScope,
  servesCluster,
  type ApplianceProfile,
  type ClusterProfile,
} from '../translate/appliance-profile.ts';
import { sortMembers } from '@portolan/snapshot';
import { serviceKey, type DirtySet } from '../incremental/dirty-set.ts';
import type { ObjectCondition } from '@portolan/desired-state';
import type { Issue } from '../translate/issue.ts';
import { pickOldest } from './oldest-wins.ts';
import { resolveMembers, type Resolution } from './resolve-members.ts';
import {
  bindingConflict,
  buildBindingIntent,
  isBindingService,
  type BindingIntent,
} from '../translate/service-binding.ts';
import { SnapshotEncoder, type EncodedSnapshot } from '@portolan/snapshot';
import { CURRENT_LAYOUT, type EncoderOptions, type SnapshotLayout } from '@portolan/snapshot';
import type { WorldView } from '../world/world-view.ts';

/**
 * Incremental planning of a LoadMaster in Service mode (as LoadMaster documents it): opted-in Services feed pre-existing Virtual
 * Services. A Service or endpoint change revisits only the Virtual Service (target) that Service binds: the intents,
 * claims per target, resolutions and outcomes it keeps are an incremental engine's cache. A new engine fed every
 * Service at once is the from-scratch plan.
 */
export class BindingEngine {
  readonly profile: ApplianceProfile;
  readonly encoder: SnapshotEncoder;
  private readonly clusters: ReadonlyMap<string, ClusterProfile>;
  private readonly intents = new Map<string, BindingIntent>();
  private readonly targets = new Map<string, Map<string, BindingIntent>>();
  private readonly resolutions = new Map<string, Resolution>();
  private readonly outcomes = new Map<string, { ok: boolean; issues: readonly Issue[] }>();

  constructor(
    profile: ApplianceProfile,
    clusters: ReadonlyMap<string, ClusterProfile>,
    layout: SnapshotLayout = CURRENT_LAYOUT,
    options: EncoderOptions = {},
  ) {
    this.profile = profile;
    this.clusters = clusters;
    this.encoder = new SnapshotEncoder(profile.name, profile.driver, layout, options);
  }

  /** Whether a dirty set can change this appliance: Service-mode bindings follow Services and (NodePort) Nodes. */
  isAffected(dirty: DirtySet): boolean {
    return (
      this.encoder.root === null ||
      dirty.services.size > 0 ||
      (this.profile.backendMode === 'nodeport' && dirty.nodeClusters.size > 0)
    );
  }

  /** Applies what changed and commits. */
  plan(world: WorldView, dirty: DirtySet): EncodedSnapshot & { readonly changed: boolean } {
    const targets = new Set<string>();
    const conditions = new Set<string>();
    for (const key of dirty.services) this.updateService(world, key, targets, conditions);
    if (this.profile.backendMode === 'nodeport') {
      for (const [key, i] of this.intents) {
        if (!dirty.nodeClusters.has(i.ref.cluster) || i.target === null) continue;
        this.resolutions.delete(key);
        targets.add(i.target);
      }
    }
    for (const t of targets) this.decide(world, t, conditions);
    for (const key of conditions) {
      const i = this.intents.get(key);
      if (i !== undefined) this.encoder.setConditions(i.ref, bindingConditions(i, this.outcomes.get(key) ?? null));
    }
    return this.encoder.commit();
  }

  private updateService(world: WorldView, key: string, targets: Set<string>, conditions: Set<string>): void {
    const [cluster = '', namespace = '', name = ''] = key.split('/');
    const cp = this.clusters.get(cluster);
    const svc = world.service(cluster, namespace, name);
    const next =
      cp !== undefined &&
      svc !== undefined &&
      servesCluster(this.profile, cluster) &&
      isBindingService(svc) &&
      isNamespaceInScope(namespace, cp.namespaces)
        ? buildBindingIntent(svc, cluster)
        : null;
    const prev = this.intents.get(key) ?? null;
    this.resolutions.delete(key);
    if (prev?.target) targets.add(prev.target);
    if (prev?.signature === next?.signature) return;
    if (prev !== null) {
      if (prev.target !== null) this.targets.get(prev.target)?.delete(key);
      this.outcomes.delete(key);
      this.encoder.setConditions(prev.ref, []);
    }
    if (next === null) this.intents.delete(key);
    else {
      this.intents.set(key, next);
      conditions.add(key);
      if (next.target !== null) {
        let m = this.targets.get(next.target);
        if (m === undefined) this.targets.set(next.target, (m = new Map()));
        m.set(key, next);
        targets.add(next.target);
      }
    }
  }

  private decide(world: WorldView, target: string, conditions: Set<string>): void {
    const claims = [...(this.targets.get(target)?.values() ?? [])];
    for (const c of claims) conditions.add(serviceKey(c.ref.cluster, c.ref.namespace, c.ref.name));
    const r = pickOldest(claims, (a, b) => a.app === b.app && a.port === b.port);
    if (r === null) {
      this.targets.delete(target);
      this.encoder.deleteBinding(target);
      return;
    }
    const members = [r.winner, ...r.merged].flatMap((i) => {
      const key = serviceKey(i.ref.cluster, i.ref.namespace, i.ref.name);
      let res = this.resolutions.get(key);
      if (res === undefined) {
        res = resolveMembers(world, {
          cluster: i.ref.cluster,
          namespace: i.ref.namespace,
          service: i.ref.name,
          port: i.port!,
          mode: this.profile.backendMode,
          weight: this.clusters.get(i.ref.cluster)?.weight ?? 1,
          asksAffinity: false,
        });
        this.resolutions.set(key, res);
      }
      this.outcomes.set(key, { ok: true, issues: res.issues });
      return res.members;
    });
    for (const l of r.losers)
      this.outcomes.set(serviceKey(l.ref.cluster, l.ref.namespace, l.ref.name), {
        ok: false,
        issues: [bindingConflict(r.winner)],
      });
    this.encoder.setBinding({ target, service: r.winner.ref, members: sortMembers(members) });
  }
}

/** Conditions of an opted-in Service in Service mode. */
export function bindingConditions(
  i: BindingIntent,
  o: { ok: boolean; issues: readonly Issue[] } | null,
): ObjectCondition[] {
  const c = (type: ObjectCondition['type'], x: Issue): ObjectCondition => ({
    object: i.ref,
    type,
    reason: x.reason,
    message: x.message,
  });
  const head =
    i.errors.length > 0
      ? i.errors.map((e) => c('Rejected', e))
      : o !== null && !o.ok
        ? o.issues.map((e) => c('Rejected', e))
        : [c('Accepted', { reason: 'Bound', message: `feeds Virtual Service ${i.target}` })];
  const tail = [...i.warnings, ...(o?.ok === true ? o.issues : [])].map((w) => c('Warning', w));
  return [...head, ...tail];
}
