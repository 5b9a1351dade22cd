import path from 'node:path';
import type { DemoSite } from './demo-components.ts';
import { UP_CONSOLE_PORTS, UP_LEADER_HEALTH_PORT, defaultDemoPorts, type DemoPorts } from './demo-files.ts';
import { demoAppliances, type DemoAppliance } from './demo-fleet-config.ts';

/** What `portolan up` (`--ha` or not) launches, and on which ports. */
export interface UpPlan {
  /** Pipeline files (fleet config, kubeconfig, logs, HAProxy's folder); `up --ha` keeps its own. */
  readonly pipelineRoot: string;
  /** The HA engine stack's folder (`up --ha` only; the same place `portolan stack up --ha` uses by default). */
  readonly engineStateDir: string;
  readonly appliances: readonly DemoAppliance[];
  readonly ports: DemoPorts & {
    readonly leaderHealth: number;
    readonly console: number;
    readonly consoleHealth: number;
  };
  readonly haproxy: { readonly http?: number; readonly https?: number; readonly stats?: number };
  /** Health port per applier replica; empty → the launcher's defaults (19103 onwards). */
  readonly applierHealthPorts: Readonly<Record<string, number>>;
  /** Site b (`up --ha` only): its own watcher and planner; its applier replicas are the appliances' `-b` ones. */
  readonly sites: readonly DemoSite[];
}

/** Site b's watcher and planner health ports under `portolan up --ha` (after the six appliers' 19103..19108). */
const siteBDefaults = { watcherHealth: 19109, plannerHealth: 19110 } as const;

/** `up --ha`'s appliances: the demo's, each group with one applier replica per site (`<group>-a`, `<group>-b`). */
export const haDemoAppliances: readonly DemoAppliance[] = demoAppliances.map((a) => ({
  ...a,
  replicas: [`${a.name}-a`, `${a.name}-b`],
}));

/** The name of `up --ha`'s second site (the first site's processes carry no suffix). */
export const haSiteName = 'b';

/** The folders `up` or `up --ha` keeps its state in under `root` (`up --ha` never touches `up`'s). */
export function upFolders(root: string, ha: boolean): Pick<UpPlan, 'pipelineRoot' | 'engineStateDir'> {
  return { pipelineRoot: ha ? path.join(root, 'ha') : root, engineStateDir: path.join(root, 'ha-stack') };
}

/**
 * The plan of `portolan up`: the fixed demo ports, or, from `basePort`, 20 consecutive ports in this order:
 * simulator, vTM, LoadMaster, echo backends, watcher, planner, leader service, HAProxy HTTP, HTTPS and stats,
 * site b's watcher and planner, one per applier replica (six at most), then the console and its health port.
 */
export function upPlan(root: string, ha: boolean, basePort?: number): UpPlan {
  const appliances = ha ? haDemoAppliances : demoAppliances;
  const replicaIds = appliances.flatMap((a) => a.replicas);
  const folders = upFolders(root, ha);
  if (basePort === undefined) {
    return {
      ...folders,
      appliances,
      ports: { ...defaultDemoPorts, leaderHealth: UP_LEADER_HEALTH_PORT, ...UP_CONSOLE_PORTS },
      haproxy: {},
      applierHealthPorts: {},
      sites: ha ? [{ name: haSiteName, ...siteBDefaults }] : [],
    };
  }
  const p = (i: number): number => basePort + i;
  return {
    ...folders,
    appliances,
    ports: {
      kubeSim: p(0),
      vtm: p(1),
      loadmaster: p(2),
      echo: p(3),
      watcherHealth: p(4),
      plannerHealth: p(5),
      leaderHealth: p(6),
      console: p(18),
      consoleHealth: p(19),
    },
    haproxy: { http: p(7), https: p(8), stats: p(9) },
    applierHealthPorts: Object.fromEntries(replicaIds.map((id, i) => [id, p(12 + i)])),
    sites: ha ? [{ name: haSiteName, watcherHealth: p(10), plannerHealth: p(11) }] : [],
  };
}

/** How many ports `upPlan` lays out from a base port. */
export const upPortSpan = 20;

/** Which site runs which process of an `up --ha` pipeline (the leader service runs in site a). */
export function siteProcesses(plan: UpPlan): { readonly site: string; readonly processes: readonly string[] }[] {
  const replicas = (suffix: string): string[] =>
    plan.appliances.flatMap((a) => a.replicas.filter((r) => r.endsWith(suffix)).map((r) => `applier-${r}`));
  return [
    { site: 'a', processes: ['watcher', 'planner', 'leader', ...replicas('-a')] },
    ...plan.sites.map((s) => ({
      site: s.name,
      processes: [`watcher-${s.name}`, `planner-${s.name}`, ...replicas(`-${s.name}`)],
    })),
  ];
}
