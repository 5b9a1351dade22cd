import type { ApplianceConfig } from '@portolan/fleet-config';
import type { KubeKind, TrimmedEndpointSlice, TrimmedIngress, TrimmedObject } from '@portolan/kube-model';

/**
 * The safety rule's limits. Kubernetes is the source of truth, so a removal it asked for (a watch DELETED event, a
 * namespace cascade, a slice scaled to zero) is applied like any change. Only removals no explicit delete explains —
 * objects a relist no longer lists — are judged, and held when they remove more than `maxRemovalFraction` of what
 * the cluster had of that kind AND at least `minRemovals` hosts or members.
 */
export interface RemovalPolicy {
  readonly maxRemovalFraction: number;
  readonly minRemovals: number;
  /** A later relist that still lacks a held object confirms its removal once this long has passed since the hold. */
  readonly relistConfirmMs: number;
}

/** The defaults: more than 30 % and at least 5 hosts or members; a relist five minutes on confirms. */
export const DEFAULT_REMOVAL_POLICY: RemovalPolicy = {
  maxRemovalFraction: 0.3,
  minRemovals: 5,
  relistConfirmMs: 5 * 60_000,
};

/** One removal the safety rule keeps: the object stays planned as it was until the hold is released. */
export interface HeldRemoval {
  readonly cluster: string;
  readonly kind: KubeKind;
  /** `namespace/name`, or `name` for cluster-scoped kinds. */
  readonly key: string;
  /** When the relist that lacked it completed (the watcher's clock, ms). */
  readonly sinceMs: number;
  /** Why it is held, in words an operator reads in `portolan status` and on the object's Event. */
  readonly reason: string;
}

/** How a hold ended: an operator's approval, Kubernetes' own DELETED event or the object's return, or a later relist. */
export type HoldRelease =
  | { readonly by: 'approval'; readonly approvedBy: string; readonly reason: string; readonly approvalId: string }
  | { readonly by: 'kubernetes'; readonly reason: string }
  | { readonly by: 'relist'; readonly reason: string };

/** A hold that began or ended while folding one input (what the store records for status and history). */
export type HoldTransition =
  | { readonly type: 'held'; readonly hold: HeldRemoval }
  | { readonly type: 'released'; readonly hold: HeldRemoval; readonly release: HoldRelease; readonly removed: boolean };

/**
 * What one object weighs against the limits: the hosts of an Ingress, the endpoints of an EndpointSlice, one for
 * anything else. The rule counts "hosts or members" because that is what reaches users as lost traffic.
 */
export function removalWeight(kind: KubeKind, object: TrimmedObject): number {
  if (kind === 'Ingress') {
    const spec = (object as TrimmedIngress).spec;
    const hosts = new Set((spec.rules ?? []).map((r) => r.host ?? ''));
    if (spec.defaultBackend !== undefined) hosts.add('');
    return Math.max(1, hosts.size);
  }
  if (kind === 'EndpointSlice')
    return (object as TrimmedEndpointSlice).endpoints.reduce((n, e) => n + e.addresses.length, 0);
  return 1;
}

/** The verdict on a relist's unexplained removals: null when they go out, else why they are held. */
export function judgeUnexplainedRemovals(
  kind: KubeKind,
  gone: number,
  total: number,
  policy: RemovalPolicy,
): string | null {
  if (gone === 0 || total === 0) return null;
  const fraction = gone / total;
  if (fraction <= policy.maxRemovalFraction || gone < policy.minRemovals) return null;
  const unit = kind === 'Ingress' ? 'hosts' : kind === 'EndpointSlice' ? 'endpoints' : `${kind} objects`;
  return (
    `a relist of ${kind} no longer lists ${gone} of ${total} ${unit} (${percent(fraction)}; limit ${percent(policy.maxRemovalFraction)} and ` +
    `${policy.minRemovals}) with no DELETED event for them`
  );
}

/** The strictest of several appliances' limits: the lowest fraction and floor, the longest confirmation wait. */
export function strictestPolicy(policies: readonly RemovalPolicy[]): RemovalPolicy | null {
  if (policies.length === 0) return null;
  return {
    maxRemovalFraction: Math.min(...policies.map((p) => p.maxRemovalFraction)),
    minRemovals: Math.min(...policies.map((p) => p.minRemovals)),
    relistConfirmMs: Math.max(...policies.map((p) => p.relistConfirmMs)),
  };
}

function percent(f: number): string {
  return `${Math.round(f * 1000) / 10}%`;
}

/** An appliance's safety limits from its fleet config (seconds become ms; a config built in code may omit them). */
export function removalPolicyOf(a: ApplianceConfig): RemovalPolicy {
  const s: Partial<ApplianceConfig['safety']> = a.safety ?? {};
  return {
    maxRemovalFraction: s.maxRemovalFraction ?? DEFAULT_REMOVAL_POLICY.maxRemovalFraction,
    minRemovals: s.minRemovals ?? DEFAULT_REMOVAL_POLICY.minRemovals,
    relistConfirmMs:
      s.relistConfirmSeconds === undefined ? DEFAULT_REMOVAL_POLICY.relistConfirmMs : s.relistConfirmSeconds * 1000,
  };
}

/** The map key of one object's hold: cluster, kind and `namespace/name`. */
export function holdKey(cluster: string, kind: KubeKind, key: string): string {
  return `${cluster}\u0000${kind}\u0000${key}`;
}

/** Holds in a stable order: cluster, kind, key. */
export function compareHolds(a: HeldRemoval, b: HeldRemoval): number {
  return a.cluster !== b.cluster
    ? a.cluster < b.cluster
      ? -1
      : 1
    : a.kind !== b.kind
      ? a.kind < b.kind
        ? -1
        : 1
      : a.key < b.key
        ? -1
        : a.key > b.key
          ? 1
          : 0;
}
