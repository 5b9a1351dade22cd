// A real pipeline on the HA stack: two sites, each with its own watcher, planner and applier replica of one vTM
// appliance (the emulator), every process given the engines as lists (NATS URLs, a multi-host Postgres URL,
// Sentinels), streams at replication 3.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  demoCredentials,
  freePort,
  kubectlBinary,
  launchPipeline,
  type HaStack,
  type LaunchedPipeline,
  type PipelineLaunchOptions,
  type SiteName,
  type StackService,
} from '@portolan/infra';
import { VtmClient } from '../e2e/appliance-clients.ts';

/** The appliance's name, its group, and its applier replicas, one per site. */
export const appliance = 'vtm';
export const replicas = ['vtm-a', 'vtm-b'] as const;

/** A pipeline on the HA stack, with what the workload and the checker need. */
export interface HaPipeline {
  readonly launched: LaunchedPipeline;
  readonly fleetConfig: string;
  readonly vtm: VtmClient;
  /** `kubectl apply -f -` of `yaml`; resolves once the API server acknowledged it. */
  apply(yaml: string): Promise<void>;
  /** `kubectl delete` of one object. */
  remove(kind: string, ns: string, name: string): Promise<void>;
  /** SIGKILLs one pipeline process (`planner`, `watcher-b`, `applier-vtm-a`...) and waits until it is gone. */
  kill(name: string): Promise<void>;
  /** Sends `signal` (SIGSTOP, SIGCONT) to one pipeline process; nothing when it is not running. */
  signal(name: string, signal: NodeJS.Signals): Promise<void>;
  /** Starts a killed process again and waits for its health check. */
  restart(name: string): Promise<void>;
  /** The last lines of every process's log. */
  diagnostics(): string;
  stop(): Promise<void>;
}

/** The site each pipeline process runs in when the stack is placed in sites. */
export const processSites: Readonly<Record<string, SiteName>> = {
  watcher: 'a',
  planner: 'a',
  [`applier-${replicas[0]}`]: 'a',
  'watcher-b': 'b',
  'planner-b': 'b',
  [`applier-${replicas[1]}`]: 'b',
};

/**
 * Where the processes run when the stack is placed in sites: each site's watcher, planner and applier replica in
 * that site's namespace; the simulator and the emulator on the external address, reachable from every site.
 */
function placementOf(stack: HaStack): Pick<PipelineLaunchOptions, 'inputsHost' | 'placement'> {
  const placed = stack.config.sites;
  if (placed === undefined) return {};
  return {
    inputsHost: placed.externalAddress,
    placement: (name) => {
      const site = processSites[name];
      return site === undefined ? undefined : placed.sites[site];
    },
  };
}

/** Starts the pipeline on `stack` and applies `manifests` before the watchers start. */
export async function startHaPipeline(stack: HaStack, manifests: string): Promise<HaPipeline> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'ptl-ha-'));
  const free = (): Promise<number> => freePort();
  const ports = {
    kubeSim: await free(),
    vtm: await free(),
    loadmaster: await free(),
    echo: await free(),
    watcherHealth: await free(),
    plannerHealth: await free(),
  };
  const applierHealthPorts = { [replicas[0]]: await free(), [replicas[1]]: await free() };
  const launched = await launchPipeline({
    root,
    ports,
    haproxyPorts: { http: await free(), https: await free(), stats: await free() },
    applierHealthPorts,
    appliances: [
      {
        name: appliance,
        driver: 'vtm',
        ingressControllers: ['pulsesecure.net/vtm-ingress-controller'],
        replicas,
        drift: { intervalSeconds: 2, policy: 'correct' },
      },
    ],
    endpoints: stack.endpoints,
    bus: { replicas: 3 },
    leases: { ttlMs: 2000, renewEveryMs: 400, retryEveryMs: 200 },
    sites: [{ name: 'b', watcherHealth: await free(), plannerHealth: await free() }],
    echoAddresses: [],
    manifests,
    ...placementOf(stack),
  }).catch((e: unknown) => {
    rmSync(root, { recursive: true, force: true });
    throw e;
  });
  return haPipelineOf(launched, root, stack.config.sites?.externalAddress ?? '127.0.0.1');
}

function haPipelineOf(launched: LaunchedPipeline, root: string, inputsHost: string): HaPipeline {
  const kubectl = kubectlBinary();
  const run = (args: readonly string[], input?: string): Promise<void> =>
    new Promise((resolve, reject) => {
      const child = execFile(
        kubectl,
        ['--kubeconfig', launched.layout.kubeconfig, ...args],
        { timeout: 30_000 },
        (error, _stdout, stderr) =>
          error
            ? reject(new Error(`kubectl ${args.join(' ')}: ${stderr || error.message}`, { cause: error }))
            : resolve(),
      );
      if (input !== undefined) child.stdin!.end(input);
    });
  const { user, password } = demoCredentials.vtm;
  const component = (name: string): StackService => {
    const found = launched.components.get(name);
    if (found === undefined) throw new Error(`no pipeline process "${name}"`);
    return found;
  };
  return {
    launched,
    fleetConfig: launched.layout.fleetConfig,
    vtm: new VtmClient(`http://${inputsHost}:${launched.layout.ports.vtm}`, user, password),
    apply: (yaml) => run(['apply', '-f', '-'], yaml),
    remove: (kind, ns, name) => run(['delete', kind, '-n', ns, name, '--wait=false']),
    async kill(name) {
      const svc = component(name);
      const { pid } = await svc.status();
      if (pid === null) return;
      process.kill(pid, 'SIGKILL');
      while ((await svc.status()).running) await sleep(20);
    },
    async signal(name, signal) {
      const { pid } = await component(name).status();
      if (pid !== null) process.kill(pid, signal);
    },
    restart: (name) => component(name).start(),
    diagnostics: () =>
      [...launched.components.keys()]
        .map((name) => `--- ${name}\n${logTail(path.join(launched.layout.runDir, `${name}.log`))}`)
        .join('\n'),
    async stop() {
      await launched.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

function logTail(file: string): string {
  if (!existsSync(file)) return '(no log)';
  return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-12).join('\n');
}
