// What the vTM holds, read back over its REST API as an operator would: the nodes of each churned Service's pool
// and whether the extra Ingress's host is routed. A background watcher notes when each endpoint change first shows.
import { setTimeout as sleep } from 'node:timers/promises';
import type { VtmClient } from '../e2e/appliance-clients.ts';
import { churned, ns, stepOfNode, type AckedChange } from './chaos-workload.ts';

/** The appliance's state as far as the workload's changes go. */
export interface ApplianceView {
  /** Each churned Service's pool nodes (`address:port`, sorted); absent when the appliance has no such pool. */
  readonly pools: ReadonlyMap<string, readonly string[]>;
  /** True when a routing rule sends `extra.chaos.example` somewhere. */
  readonly extraRouted: boolean;
}

/** Reads the view once. */
export async function readApplianceView(vtm: VtmClient): Promise<ApplianceView> {
  const pools = new Map<string, readonly string[]>();
  for (const name of await vtm.names('pools')) {
    const pool = await vtm.get('pools', name);
    const note = String(pool?.basic?.note ?? '');
    const owner = churned.find((s) => note.includes(`:Service/local/${ns}/${s}`));
    const table = (pool?.basic?.nodes_table ?? []) as { node: string }[];
    if (owner !== undefined) pools.set(owner, table.map((n) => n.node).sort());
  }
  let extraRouted = false;
  for (const name of await vtm.names('rules')) {
    if (String((await vtm.get('rules', name))?.raw?.text ?? '').includes('extra.chaos.example')) extraRouted = true;
  }
  return { pools, extraRouted };
}

/** The view the acknowledged changes call for: each Service's last addresses, the extra Ingress's last state. */
export function expectedView(changes: readonly AckedChange[], port = 8080): ApplianceView {
  const pools = new Map<string, readonly string[]>();
  let extraRouted = false;
  for (const c of changes) {
    if (c.target === 'extra') extraRouted = c.addresses !== null;
    else pools.set(c.target, (c.addresses ?? []).map((a) => `${a}:${port}`).sort());
  }
  return { pools, extraRouted };
}

/** Polls the appliance until stopped, noting when each endpoint change's addresses first showed (by step). */
export function watchAppliance(vtm: VtmClient): { seen: Map<number, number>; stop(): Promise<void> } {
  const seen = new Map<number, number>();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      // The appliance itself is never faulted; a read that fails is retried on the next round.
      const view = await readApplianceView(vtm).catch(() => null);
      const at = performance.now();
      for (const nodes of view?.pools.values() ?? []) {
        const step = nodes[0] === undefined ? null : stepOfNode(nodes[0]);
        if (step !== null && !seen.has(step)) seen.set(step, at);
      }
      await sleep(150);
    }
  })();
  return {
    seen,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
