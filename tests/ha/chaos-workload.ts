// The chaos workload: endpoint churn on a few Services (each change a new, unique address set, so the appliance
// shows which change it holds), an Ingress added and removed, and faults injected on the engines at set steps.
import { setTimeout as sleep } from 'node:timers/promises';
import { InternalError } from '@portolan/errors';
import type { HaStack, SiteNetwork } from '@portolan/infra';
import { endpointSlice, ingress, ingressClass, namespace, service } from '../e2e/manifests.ts';
import { replicas, type HaPipeline } from './ha-pipeline.ts';

export const ns = 'chaos';
/** The Services whose endpoints churn; each is a host of the `site` Ingress. */
export const churned = ['web-0', 'web-1', 'web-2', 'web-3'] as const;
const className = 'vtm';

/** The addresses of change `step`: unique to it (up to step 63 000), so a pool's nodes name the change they came from. */
export const addressesOf = (step: number): string[] => {
  const prefix = `10.${2 + Math.floor(step / 256)}.${step % 256}`;
  return [`${prefix}.1`, `${prefix}.2`];
};

/** The step whose addresses a pool's first node has, or null (the inverse of addressesOf). */
export function stepOfNode(node: string): number | null {
  const m = /^10\.(\d+)\.(\d+)\.\d+:/.exec(node);
  return m === null ? null : (Number(m[1]) - 2) * 256 + Number(m[2]);
}

/** The manifests applied before the watchers start: the namespace, the Services at step 0, their Ingress. */
export function initialManifests(): string {
  return [
    namespace(ns),
    ingressClass(className, 'pulsesecure.net/vtm-ingress-controller'),
    ...churned.flatMap((s) => [service(ns, s, 8080), endpointSlice(ns, s, addressesOf(0), 8080)]),
    ingress(ns, 'site', {
      className,
      rules: churned.map((s) => ({ host: `${s}.chaos.example`, paths: [{ path: '/', type: 'Prefix', service: s }] })),
    }),
  ].join('');
}

/** One change the API server acknowledged: which Service's endpoints (or the extra Ingress), and when. */
export interface AckedChange {
  readonly step: number;
  /** A churned Service, or `extra` for the Ingress added (addresses set) and removed (addresses null). */
  readonly target: string;
  readonly addresses: readonly string[] | null;
  readonly ackedAt: number;
}

/** The kinds of fault the workload injects. */
export type FaultKind =
  | 'nats-node'
  | 'nats-pause'
  | 'postgres-primary'
  | 'redis-master'
  | 'leader-applier'
  | 'planner'
  | 'site-pause'
  | 'site-partition';

/** Site b: its Portolan processes, and the NATS node that stands for its engines. */
export const siteB = { processes: ['watcher-b', 'planner-b', `applier-${replicas[1]}`], natsNode: 'nats-2' } as const;

/** One fault injected, when, and on which node or process. */
export interface InjectedFault {
  readonly kind: FaultKind;
  readonly node: string;
  readonly at: number;
}

/** A fault before `step`; what it broke comes back `recoverAfter` steps later (a restart, or SIGCONT). */
export interface PlannedFault {
  readonly step: number;
  readonly kind: FaultKind;
  readonly recoverAfter?: number;
}

/** The workload's length and pace, when the extra Ingress comes and goes, and the faults. */
export interface FaultPlan {
  /** The first step's number (default 1): rounds of a long run continue the numbering, so addresses stay unique. */
  readonly firstStep?: number;
  readonly steps: number;
  readonly intervalMs: number;
  readonly extraAddedAt: number;
  readonly extraRemovedAt: number;
  readonly faults: readonly PlannedFault[];
  /** Seeds the choice of the NATS node to fault. */
  readonly seed: number;
}

/** What the workload acts on. */
export interface WorkloadContext {
  readonly stack: HaStack;
  readonly pipeline: HaPipeline;
  /** The replica id holding the appliance group's newest epoch, or null. */
  readonly leader: () => Promise<string | null>;
  readonly log: (line: string) => void;
  /** The site network the stack and pipeline are placed in; `site-partition` needs it. */
  readonly network?: Pick<SiteNetwork, 'cut' | 'heal'>;
}

/** Runs the workload with its faults; returns every acknowledged change and every fault, in order. */
export async function runWorkload(
  ctx: WorkloadContext,
  plan: FaultPlan,
): Promise<{ changes: AckedChange[]; faults: InjectedFault[] }> {
  const changes: AckedChange[] = [];
  const faults: InjectedFault[] = [];
  const recoveries = new Map<number, (() => Promise<void>)[]>();
  const first = plan.firstStep ?? 1;
  const last = first + plan.steps - 1;
  for (let step = first; step <= last; step++) {
    for (const recover of recoveries.get(step) ?? []) await recover();
    for (const planned of plan.faults.filter((f) => f.step === step)) {
      const { fault, recover } = await inject(planned.kind, ctx, plan.seed);
      faults.push(fault);
      ctx.log(`step ${step}: ${fault.kind} on ${fault.node}`);
      const at = step + (planned.recoverAfter ?? 0);
      if (recover !== null && planned.recoverAfter !== undefined)
        recoveries.set(at, [...(recoveries.get(at) ?? []), recover]);
    }
    changes.push(await change(step, plan, ctx.pipeline));
    await sleep(plan.intervalMs);
  }
  for (const [, recover] of [...recoveries].filter(([at]) => at > last)) for (const r of recover) await r();
  return { changes, faults };
}

/** Injects one fault; returns it, and how to undo what a restart or SIGCONT undoes (null: the engine fails over). */
async function inject(
  kind: FaultKind,
  ctx: WorkloadContext,
  seed: number,
): Promise<{ fault: InjectedFault; recover: (() => Promise<void>) | null }> {
  const { stack, pipeline, leader } = ctx;
  const at = performance.now();
  const natsNode = `nats-${(seed % 3) + 1}`;
  switch (kind) {
    case 'nats-node':
      await stack.kill(natsNode);
      return { fault: { kind, node: natsNode, at }, recover: () => stack.service(natsNode).start() };
    case 'nats-pause':
      await stack.signal(natsNode, 'SIGSTOP');
      return { fault: { kind, node: natsNode, at }, recover: () => stack.signal(natsNode, 'SIGCONT') };
    case 'postgres-primary': {
      const primary = stack.postgresPrimary();
      await stack.kill(primary);
      // The standby is promoted a moment later, as an operator or a failover manager would.
      await sleep(500);
      await stack.promotePostgres();
      return { fault: { kind, node: primary, at }, recover: null };
    }
    case 'redis-master': {
      const master = (await stack.redisMaster()) ?? 'redis-1';
      await stack.kill(master);
      return { fault: { kind, node: master, at }, recover: null };
    }
    case 'site-pause': {
      // The whole site stops at once (SIGSTOP): to the other site it looks cut off; its leader, if it led, resumes
      // later believing nothing happened, and must find its term over.
      const signal = (sig: NodeJS.Signals) => async (): Promise<void> => {
        await stack.signal(siteB.natsNode, sig);
        for (const name of siteB.processes) await pipeline.signal(name, sig);
      };
      await signal('SIGSTOP')();
      return { fault: { kind, node: 'site b', at }, recover: signal('SIGCONT') };
    }
    case 'site-partition':
      return { fault: { kind, node: 'site b', at }, recover: await partition(ctx) };
    case 'leader-applier':
    case 'planner': {
      const name = kind === 'planner' ? 'planner' : `applier-${(await leader()) ?? replicas[0]}`;
      await pipeline.kill(name);
      return { fault: { kind, node: name, at }, recover: () => pipeline.restart(name) };
    }
  }
}

/**
 * Cuts site b off by the network: its processes and engine nodes run on, unreachable from sites a and c and from
 * this process, while the appliance stays reachable from b. What a failover manager with a quorum (site c is the
 * witness) does is done 0.5 s later:
 * - the Postgres primary in a stops waiting for its standby in b (it would wait for it on every commit);
 * - a primary in b has lost the quorum: it stops taking writes (stopped here, as a primary demoting itself on losing
 *   its lease would) and a's standby, which holds every acknowledged commit, is promoted. The old primary rejoins as
 *   a standby when the round ends, like a killed one.
 * Returns the heal, which makes a primary in a wait for its standby again once the standby has caught up.
 */
async function partition({ stack, network }: WorkloadContext): Promise<() => Promise<void>> {
  if (network === undefined)
    throw new InternalError('CHAOS_NO_SITE_NETWORK', 'site-partition needs the stack placed in a site network');
  await network.cut('b');
  const primaryInA = stack.postgresPrimary() === 'postgres-1';
  await sleep(500);
  if (primaryInA) await stack.postgresSynchronous(false);
  else {
    await stack.kill('postgres-2');
    await stack.promotePostgres();
  }
  return async () => {
    await network.heal('b');
    if (primaryInA) await stack.postgresSynchronous(true);
  };
}

/** Applies step's change, retrying until the API server acknowledges it (the simulator is not faulted). */
async function change(step: number, plan: FaultPlan, pipeline: HaPipeline): Promise<AckedChange> {
  if (step === plan.extraAddedAt || step === plan.extraRemovedAt) {
    const added = step === plan.extraAddedAt;
    if (added) {
      const backend = churned[0];
      const rules = [
        { host: 'extra.chaos.example', paths: [{ path: '/', type: 'Prefix' as const, service: backend }] },
      ];
      await pipeline.apply(ingress(ns, 'extra', { className, rules }));
    } else await pipeline.remove('ingress', ns, 'extra');
    return { step, target: 'extra', addresses: added ? ['extra.chaos.example'] : null, ackedAt: performance.now() };
  }
  const target = churned[step % churned.length]!;
  await pipeline.apply(endpointSlice(ns, target, addressesOf(step), 8080));
  return { step, target, addresses: addressesOf(step), ackedAt: performance.now() };
}
