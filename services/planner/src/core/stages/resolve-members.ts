import type { MemberState, PoolMember } from '@portolan/desired-state';
import type { ServicePort, TrimmedEndpointSlice, TrimmedService } from '@portolan/kube-model';
import { memberSortKey } from '@portolan/snapshot';
import { issue, type Issue } from '../translate/issue.ts';
import type { WorldView } from '../world/world-view.ts';

/** Members of one Service port in one cluster, and what stopped some or all of them from being planned. */
export interface Resolution {
  readonly members: readonly PoolMember[];
  readonly issues: readonly Issue[];
}

/** What to resolve: a Service port (by number or name) in one cluster, and how. */
export interface ResolveRequest {
  readonly cluster: string;
  readonly namespace: string;
  readonly service: string;
  readonly port: number | string;
  readonly mode: 'endpoints' | 'nodeport';
  /** Member weight: the cluster's weight in multi-cluster pools (fleet config). */
  readonly weight: number;
  /** Whether the pool asks for persistence or a monitor (NodePort mode then needs externalTrafficPolicy: Local). */
  readonly asksAffinity: boolean;
}

/**
 * The resolve stage: Service → port (by number or name) → EndpointSlices (ready → active, serving and terminating →
 * draining), or in NodePort mode the Ready nodes' InternalIP × nodePort (the vTM integration's NodePort data path). Cost: the Service's
 * slices (and the cluster's nodes in NodePort mode), never the world.
 */
export function resolveMembers(world: WorldView, r: ResolveRequest, previous?: readonly PoolMember[]): Resolution {
  const held = previous !== undefined && previous.length > 0 ? previous : undefined;
  const out = resolve(world, r, held);
  // Endpoint members reuse the held ones as they are built; NodePort members are matched afterwards.
  if (held !== undefined && r.mode === 'nodeport' && out.members.length > 0)
    reuseEqual(out.members as PoolMember[], held);
  return out;
}

/**
 * Puts the previous resolution's member objects in place of equal new ones (both lists are in (address, port)
 * order), so the state kept after a one-endpoint change is one new member, not a whole pool's worth. Only
 * value-equal members are swapped: the result is the same whatever `previous` holds.
 */
function reuseEqual(members: PoolMember[], previous: readonly PoolMember[]): void {
  let j = 0;
  for (let i = 0; i < members.length && j < previous.length; i++) {
    const m = members[i]!;
    while (
      j < previous.length &&
      (previous[j]!.address < m.address || (previous[j]!.address === m.address && previous[j]!.port < m.port))
    )
      j++;
    const p = previous[j];
    if (
      p !== undefined &&
      p.address === m.address &&
      p.port === m.port &&
      p.state === m.state &&
      p.weight === m.weight &&
      p.cluster === m.cluster &&
      p.node === m.node
    ) {
      members[i] = p;
      j++;
    }
  }
}

function resolve(world: WorldView, r: ResolveRequest, held: readonly PoolMember[] | undefined): Resolution {
  const svc = world.service(r.cluster, r.namespace, r.service);
  if (svc === undefined) return { members: [], issues: [issue('ServiceNotFound', `${whereOf(r)} does not exist`)] };
  if (svc.spec.type === 'ExternalName')
    return {
      members: [],
      issues: [issue('ExternalNameService', `${whereOf(r)} is of type ExternalName; it has no endpoints to balance`)],
    };
  const sp = (svc.spec.ports ?? []).find((p) => (typeof r.port === 'number' ? p.port === r.port : p.name === r.port));
  if (sp === undefined)
    return { members: [], issues: [issue('ServicePortNotFound', `${whereOf(r)} has no port ${r.port}`)] };
  const slices = world.slicesOfService(r.cluster, r.namespace, r.service);
  if (r.mode === 'endpoints') return { members: endpointMembers(slices, sp, r, held), issues: NO_ISSUES };
  return nodePortMembers(world, svc, sp, slices, r, whereOf(r));
}

/** The issues of a clean resolution: one shared empty list (a resolution is kept for as long as its pool). */
const NO_ISSUES: readonly Issue[] = Object.freeze([]);

function endpointState(
  c: { ready?: boolean; serving?: boolean; terminating?: boolean } | undefined,
): MemberState | null {
  const ready = c?.ready ?? true;
  const serving = c?.serving ?? ready;
  if (c?.terminating === true) return serving ? 'draining' : null;
  return ready ? 'active' : null;
}

function rank(m: PoolMember): number {
  return m.state === 'active' ? 0 : 1;
}

function byEndpoint(a: PoolMember, b: PoolMember): number {
  return a.address < b.address
    ? -1
    : a.address > b.address
      ? 1
      : a.port - b.port || rank(a) - rank(b) || (a.node < b.node ? -1 : a.node > b.node ? 1 : 0);
}

/**
 * Sorts by `byEndpoint`: insertion sort for slice-sized lists (no allocation; slices are usually almost sorted, e.g.
 * one endpoint replaced), the built-in sort beyond. Both are stable, so the result is the same.
 */
function sortEndpoints(members: PoolMember[]): void {
  if (members.length > 32) {
    members.sort(byEndpoint);
    return;
  }
  for (let i = 1; i < members.length; i++) {
    const m = members[i]!;
    let j = i - 1;
    while (j >= 0 && byEndpoint(members[j]!, m) > 0) {
      members[j + 1] = members[j]!;
      j--;
    }
    members[j + 1] = m;
  }
}

/** Whether members are already in `byEndpoint` order (slices usually list endpoints sorted): then no sort runs. */
function sorted(members: readonly PoolMember[]): boolean {
  for (let i = 1; i < members.length; i++) if (byEndpoint(members[i - 1]!, members[i]!) > 0) return false;
  return true;
}

/**
 * The held member for (address, port) when it has every other field equal too, else undefined. `held` is a previous
 * resolution, in (address, port) order with one member each: a binary search. Whatever `held` holds, only a
 * value-equal member is returned, so the resolution is the same with or without it.
 */
function heldEqual(
  held: readonly PoolMember[],
  address: string,
  port: number,
  state: MemberState,
  weight: number,
  cluster: string,
  node: string,
): PoolMember | undefined {
  let lo = 0;
  let hi = held.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const m = held[mid]!;
    if (m.address === address && m.port === port)
      return m.state === state && m.weight === weight && m.cluster === cluster && m.node === node ? m : undefined;
    if (m.address < address || (m.address === address && m.port < port)) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

function endpointMembers(
  slices: readonly TrimmedEndpointSlice[],
  sp: ServicePort,
  r: ResolveRequest,
  held: readonly PoolMember[] | undefined,
): PoolMember[] {
  // Sized once for every endpoint (the list is kept as the pool's members: no spare capacity from growing by push).
  let most = 0;
  for (const slice of slices) most += slice.endpoints.length;
  const out = new Array<PoolMember>(most);
  let k = 0;
  const wanted = sp.name ?? '';
  for (const slice of slices) {
    if (slice.addressType !== 'IPv4' && slice.addressType !== 'IPv6') continue;
    let port: number | undefined;
    for (const p of slice.ports) if ((p.name ?? '') === wanted) port = p.port;
    if (port === undefined) continue;
    for (const e of slice.endpoints) {
      const state = endpointState(e.conditions);
      const address = e.addresses[0];
      if (state === null || address === undefined) continue;
      const node = e.nodeName ?? '';
      // An unchanged endpoint keeps its member object: one allocation per changed endpoint, not per endpoint.
      out[k++] = (held !== undefined
        ? heldEqual(held, address, port, state, r.weight, r.cluster, node)
        : undefined) ?? { address, port, state, weight: r.weight, cluster: r.cluster, node };
    }
  }
  out.length = k;
  // (address, port) order is the canonical member order for one cluster. The same endpoint can sit in two slices
  // while they are rebalanced: sorting puts the most available view (then the lower node name) first, and only
  // that one is kept, so the result never depends on the order slices arrived in.
  if (!sorted(out)) sortEndpoints(out);
  let w = 0;
  for (let i = 0; i < out.length; i++) {
    const m = out[i]!;
    const prev = w > 0 ? out[w - 1]! : undefined;
    if (prev !== undefined && prev.address === m.address && prev.port === m.port) continue;
    out[w++] = m;
  }
  out.length = w;
  return out;
}

/** How issues name the Service (built only when there is an issue to report). */
function whereOf(r: ResolveRequest): string {
  return `Service ${r.namespace}/${r.service} in cluster ${r.cluster}`;
}

function nodePortMembers(
  world: WorldView,
  svc: TrimmedService,
  sp: ServicePort,
  slices: readonly TrimmedEndpointSlice[],
  r: ResolveRequest,
  where: string,
): Resolution {
  const type = svc.spec.type ?? 'ClusterIP';
  if ((type !== 'NodePort' && type !== 'LoadBalancer') || sp.nodePort === undefined) {
    return {
      members: [],
      issues: [
        issue(
          'NotNodePortService',
          `${where} is of type ${type}; NodePort mode needs type NodePort or LoadBalancer with a nodePort`,
        ),
      ],
    };
  }
  const local = svc.spec.externalTrafficPolicy === 'Local';
  const issues =
    r.asksAffinity && !local
      ? [
          issue(
            'AffinityNeedsLocalTrafficPolicy',
            `${where}: persistence and health monitors need spec.externalTrafficPolicy: Local (and pod anti-affinity), or kube-proxy may route to another node`,
          ),
        ]
      : [];
  // With Local, only nodes running a serving endpoint accept traffic: plan exactly those (active if one is ready).
  const onNode = new Map<string, MemberState>();
  let named = 0;
  for (const slice of slices) {
    for (const e of slice.endpoints) {
      const state = endpointState(e.conditions);
      if (state === null || e.nodeName === undefined) continue;
      named++;
      if (onNode.get(e.nodeName) !== 'active') onNode.set(e.nodeName, state);
    }
  }
  const members: PoolMember[] = [];
  for (const node of world.nodes(r.cluster)) {
    if (node.status.ready !== 'True' || node.metadata.deletionTimestamp !== undefined) continue;
    const address = node.status.addresses.find((a) => a.type === 'InternalIP')?.address;
    if (address === undefined) continue;
    const state: MemberState | undefined = local && named > 0 ? onNode.get(node.metadata.name) : 'active';
    if (state === undefined) continue;
    members.push({ address, port: sp.nodePort, state, weight: r.weight, cluster: r.cluster, node: node.metadata.name });
  }
  return { members: members.sort((a, b) => (memberSortKey(a) < memberSortKey(b) ? -1 : 1)), issues };
}
