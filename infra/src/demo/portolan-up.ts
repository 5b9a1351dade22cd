import http from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { haStack, type HaStack } from '../ha-stack.ts';
import type { HaStackEndpoints } from '../ha-stack-config.ts';
import { localStack } from '../local-stack.ts';
import { waitFor } from '../process-control.ts';
import { haproxyService } from '../services/haproxy.ts';
import { stackConfig } from '../stack-config.ts';
import type { DemoLayout } from './demo-files.ts';
import { launchPipeline, stopPipeline } from './pipeline-launcher.ts';
import { sampleManifests } from './sample-manifests.ts';
import { siteProcesses, upFolders, upPlan, haDemoAppliances, haSiteName, type UpPlan } from './up-plan.ts';

/** Options of `portolan up`. */
export interface UpOptions {
  /** Folder for all demo state (default `.portolan` under the working directory). */
  readonly root?: string;
  readonly kubeconfig?: string;
  readonly httpPort?: number;
  readonly httpsPort?: number;
  /**
   * The HA engine stack (under `<root>/ha-stack`, ports from PORTOLAN_HA_BASE_PORT) and the pipeline across two
   * sites (files under `<root>/ha`): `up` and `up --ha` share no state.
   */
  readonly ha?: boolean;
  /** Every pipeline port laid out from this one (`upPlan`); default: the fixed demo ports. */
  readonly basePort?: number;
  readonly log?: (line: string) => void;
}

/** What `portolan up --ha` adds to its report: the engines, and which site runs which process. */
export interface UpHaReport {
  readonly engines: HaStackEndpoints;
  readonly engineStateDir: string;
  readonly sites: readonly { readonly site: string; readonly processes: readonly string[] }[];
}

/** What `portolan up` prints. */
export interface UpResult {
  readonly layout: DemoLayout;
  readonly httpUrl: string;
  readonly httpsUrl: string;
  readonly serving: boolean;
  /** The console's URL and the operator's token (kept in `layout.operatorTokenFile`). */
  readonly console: { readonly url: string; readonly operatorToken: string };
  /** Present for `up --ha`. */
  readonly ha?: UpHaReport;
}

/** Starts the stack, the simulator, the emulators, echo backends and the pipeline; applies the sample manifests. */
export async function portolanUp(options: UpOptions = {}): Promise<UpResult> {
  const root = path.resolve(options.root ?? path.join(process.cwd(), '.portolan'));
  const ha = options.ha === true;
  const plan = upPlan(root, ha, options.basePort);
  const engines = ha ? await startEngines(plan, options.log) : undefined;
  // The demo Gateway listens on HAProxy's HTTP port at an address of its own.
  const httpPort = options.httpPort ?? plan.haproxy.http ?? stackConfig().haproxyHttpPort;
  const pipeline = await launchPipeline({
    root: plan.pipelineRoot,
    ...(options.kubeconfig === undefined ? {} : { kubeconfig: options.kubeconfig }),
    haproxyPorts: {
      ...plan.haproxy,
      ...(options.httpPort ? { http: options.httpPort } : {}),
      ...(options.httpsPort ? { https: options.httpsPort } : {}),
    },
    ports: plan.ports,
    appliances: plan.appliances,
    applierHealthPorts: plan.applierHealthPorts,
    manifests: sampleManifests(plan.ports.echo, httpPort),
    // Two sites on three NATS nodes: every stream on all three, so losing any one node loses no acknowledged event.
    ...(engines === undefined ? {} : { endpoints: engines, bus: { replicas: 3 }, sites: plan.sites }),
    ...(options.log ? { log: options.log } : {}),
  });
  const httpUrl = `http://127.0.0.1:${pipeline.haproxy.httpPort}`;
  const serving = await waitFor(async () => (await statusWithHost(`${httpUrl}/`, 'demo.local')) === 200, 60_000, 250);
  return {
    layout: pipeline.layout,
    httpUrl,
    httpsUrl: `https://127.0.0.1:${pipeline.haproxy.httpsPort}`,
    serving,
    console: {
      url: `http://127.0.0.1:${plan.ports.console}/`,
      operatorToken: readFileSync(pipeline.layout.operatorTokenFile, 'utf8').trim(),
    },
    ...(engines === undefined
      ? {}
      : { ha: { engines, engineStateDir: plan.engineStateDir, sites: siteProcesses(plan) } }),
  };
}

/** Starts the HA engine stack of `up --ha` (installing what is missing); resolves its endpoints. */
async function startEngines(plan: UpPlan, log?: (line: string) => void): Promise<HaStackEndpoints> {
  const engines = haStack({ config: { stateDir: plan.engineStateDir }, ...(log ? { log } : {}) });
  await engines.up();
  return engines.endpoints;
}

/** Stops every demo process, then the stack (data is kept); `ha` stops what `up --ha` started. */
export async function portolanDown(
  options: { root?: string; ha?: boolean; log?: (line: string) => void } = {},
): Promise<void> {
  const root = path.resolve(options.root ?? path.join(process.cwd(), '.portolan'));
  if (options.ha !== true) {
    await stopPipeline(root, undefined, options.log);
    await localStack({ config: { stateDir: path.join(root, 'stack') } }).down();
    return;
  }
  const { pipelineRoot, engineStateDir } = upFolders(root, true);
  // Ports do not matter when stopping: every process is found by its pid file.
  const site = { name: haSiteName, watcherHealth: 0, plannerHealth: 0 };
  await stopPipeline(pipelineRoot, haDemoAppliances, options.log, [site], true);
  options.log?.('stopping haproxy');
  await haproxyService(stackConfig({ stateDir: path.join(pipelineRoot, 'stack') }), 'haproxy').stop();
  await stopEngines(haStack({ config: { stateDir: engineStateDir } }), options.log);
}

/**
 * Stops the HA engines as `HaStack.down` does, in its order within each engine (Sentinels before Redis, so none
 * fails over while Redis stops; the Postgres nodes one after the other), the three engines at once.
 */
async function stopEngines(stack: HaStack, log: (line: string) => void = () => {}): Promise<void> {
  const inOrder = async (names: readonly string[]): Promise<void> => {
    for (const name of names) {
      log(`stopping ${name}`);
      await stack.service(name).stop();
    }
  };
  const together = (names: readonly string[]): Promise<unknown> => Promise.all(names.map((n) => inOrder([n])));
  await Promise.all([
    together(['nats-3', 'nats-2', 'nats-1']),
    inOrder(['postgres-2', 'postgres-1']),
    together(['sentinel-3', 'sentinel-2', 'sentinel-1']).then(() => together(['redis-2', 'redis-1'])),
  ]);
}

/** GET with an explicit Host header (fetch forbids setting Host); resolves the status, or 0 on a connection error. */
function statusWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(url, { headers: { host }, timeout: 1000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(0));
  });
}
