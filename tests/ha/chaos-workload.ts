// The chaos workload: endpoint churn on a few Services (each change a new, unique address set, so the appliance
// shows which change it holds), an Ingress added and removed, and faults injected on the engines at set steps.
import { setTimeout as sleep } from 'node:timers/promises';
import type { HaStack } from '@portolan/infra';
import { endpointSlice, ingress, ingressClass, namespace, service } from '../e2e/manifests.ts';
import type { HaPipeline } from './ha-pipeline.ts';

export const ns = 'chaos';
/** The Services whose endpoints churn; each is a host of the `site` Ingress. */
export const churned = ['web-0', 'web-1', 'web-2', 'web-3'] as const;
const className = 'vtm';

/** The addresses of change `step`: unique to it, so a pool's nodes name the change they came from. */
export const addressesOf = (step: number): string[] => [`10.2.${step}.1`, `10.2.${step}.2`];

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

/** One fault injected, when, and on which node. */
export interface InjectedFault {
  readonly kind: 'nats-node' | 'postgres-primary' | 'redis-master';
  readonly node: string;
  readonly at: number;
}

/** Which fault runs before which step (and when a killed NATS node comes back). */
export interface FaultPlan {
  readonly steps: number;
  readonly intervalMs: number;
  readonly natsKillAt: number;
  readonly natsRestartAt: number;
  readonly postgresKillAt: number;
  readonly redisKillAt: number;
  readonly extraAddedAt: number;
  readonly extraRemovedAt: number;
  /** Seeds the choice of the NATS node to kill. */
  readonly seed: number;
}

/** Runs the workload with its faults; returns every acknowledged change and every fault, in order. */
export async function runWorkload(
  stack: HaStack,
  pipeline: HaPipeline,
  plan: FaultPlan,
  log: (line: string) => void,
): Promise<{ changes: AckedChange[]; faults: InjectedFault[] }> {
  const changes: AckedChange[] = [];
  const faults: InjectedFault[] = [];
  const natsNode = `nats-${(plan.seed % 3) + 1}`;
  for (let step = 1; step <= plan.steps; step++) {
    const fault = await injectBefore(step, plan, stack, natsNode);
    if (fault !== null) {
      faults.push(fault);
      log(`step ${step}: ${fault.kind} ${fault.node} killed`);
    }
    changes.push(await change(step, plan, pipeline));
    await sleep(plan.intervalMs);
  }
  return { changes, faults };
}

async function injectBefore(step: number, plan: FaultPlan, stack: HaStack, natsNode: string) {
  const at = performance.now();
  if (step === plan.natsKillAt) {
    await stack.kill(natsNode);
    return { kind: 'nats-node', node: natsNode, at } as const;
  }
  if (step === plan.natsRestartAt) await stack.service(natsNode).start();
  if (step === plan.postgresKillAt) {
    const primary = stack.postgresPrimary();
    await stack.kill(primary);
    // The standby is promoted a moment later, as an operator or a failover manager would.
    await sleep(500);
    await stack.promotePostgres();
    return { kind: 'postgres-primary', node: primary, at } as const;
  }
  if (step === plan.redisKillAt) {
    const master = (await stack.redisMaster()) ?? 'redis-1';
    await stack.kill(master);
    return { kind: 'redis-master', node: master, at } as const;
  }
  return null;
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
