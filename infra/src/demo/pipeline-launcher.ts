import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { localStack } from '../local-stack.ts';
import { stackConfig, type StackConfig, type StackEndpoints } from '../stack-config.ts';
import { ensureBinaries, findBinary, stackBinaries } from '../system-packages.ts';
import { haproxyPaths, haproxyService } from '../services/haproxy.ts';
import type { StackService } from '../services/daemon-service.ts';
import { StackServiceError } from '../errors.ts';
import { errorMessage } from '@portolan/errors';
import { demoComponents, type DemoSelection, type DemoSite, type ServicePlacement } from './demo-components.ts';
export type { DemoSite, ServicePlacement } from './demo-components.ts';
import { demoAppliances, type DemoAppliance, type DemoFleetInputs, type DemoHaproxy } from './demo-fleet-config.ts';
import {
  UP_CONSOLE_PORTS,
  UP_LEADER_HEALTH_PORT,
  demoCredentials,
  demoLayout,
  writeDemoFiles,
  type DemoApplier,
  type DemoLayout,
  type DemoPorts,
} from './demo-files.ts';
import { demoBackends } from './sample-manifests.ts';
import { putDemoTrafficIpGroup } from './demo-traffic-ip-group.ts';

/** `portolan up`'s applier health ports (19103 onwards, in replica order). */
const firstApplierHealthPort = 19103;

/** How to launch a demo pipeline: `portolan up` uses the defaults; end-to-end tests set ports and endpoints. */
export interface PipelineLaunchOptions {
  /** Folder for every file of the pipeline (fleet config, kubeconfig, logs, pid files, HAProxy's files). */
  readonly root: string;
  readonly kubeconfig?: string;
  readonly ports?: Partial<DemoPorts>;
  /** HAProxy's HTTP, HTTPS and stats/health ports (defaults: the stack config's, 8080/8443/18404). */
  readonly haproxyPorts?: { readonly http?: number; readonly https?: number; readonly stats?: number };
  /**
   * Existing Postgres, NATS and Redis (e.g. the test stack with a fresh database); omitted → a private local
   * stack under `<root>/stack`. HAProxy is always private to the pipeline.
   */
  readonly endpoints?: StackEndpoints;
  readonly appliances?: readonly DemoAppliance[];
  /** Health port per applier replica id (default 19103 onwards in replica order). */
  readonly applierHealthPorts?: Readonly<Record<string, number>>;
  readonly bus?: DemoFleetInputs['bus'];
  readonly leases?: DemoFleetInputs['leases'];
  readonly heartbeatSeconds?: number;
  /** Loopback addresses for the echo backends (default: the sample manifests' pods). */
  readonly echoAddresses?: readonly string[];
  /** YAML applied with kubectl once the simulator runs, before the watcher starts; omitted → nothing. */
  readonly manifests?: string;
  /** The code every process runs (default: this checkout), e.g. a production-only install of it. */
  readonly codeRoot?: string;
  /** Further sites, each running its own watcher and planner beside the first site's (applier replicas are named). */
  readonly sites?: readonly DemoSite[];
  /** Variables added to the environment of the services (watchers, planners, appliers), e.g. `OTEL_*` for traces. */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Where the simulator and the emulators listen (default 127.0.0.1); the kubeconfig and the fleet config name it.
   * Services placed in other network namespaces reach them there (e.g. a site network's external address).
   */
  readonly inputsHost?: string;
  /** Runs services by name (`watcher-b`, `applier-vtm-a`...) in other network namespaces; default all here. */
  readonly placement?: (service: string) => ServicePlacement | undefined;
  readonly log?: (line: string) => void;
}

/** A launched pipeline: where everything is, and how to stop it. */
export interface LaunchedPipeline {
  readonly layout: DemoLayout;
  /** The stack config HAProxy ran from (its ports and state folder). */
  readonly stack: StackConfig;
  readonly endpoints: StackEndpoints;
  readonly haproxy: DemoHaproxy & { readonly statsPort: number };
  readonly appliers: readonly DemoApplier[];
  /** Every pipeline process by name (`kube-sim`, `watcher`, `planner`, `applier-<id>`, `haproxy` when it runs, ...). */
  readonly components: ReadonlyMap<string, StackService>;
  /** Stops the pipeline processes and HAProxy (a private stack's data services keep running: see `portolan down`). */
  stop(): Promise<void>;
}

/** The applier replicas of `appliances` with their health ports. */
export function demoAppliers(
  appliances: readonly DemoAppliance[],
  healthPorts: Readonly<Record<string, number>> = {},
): DemoApplier[] {
  return appliances
    .flatMap((a) => a.replicas.map((id) => ({ appliance: a.name, id })))
    .map((r, i) => ({ ...r, healthPort: healthPorts[r.id] ?? firstApplierHealthPort + i }));
}

/**
 * Starts a demo pipeline: the stack (or only HAProxy, when endpoints are given), the simulator, echo backends and
 * emulators, then the watcher, the planner and the appliers. Each phase starts in parallel; a failure stops
 * whatever this call started and rethrows (the error names the process and shows its log tail).
 */
export async function launchPipeline(options: PipelineLaunchOptions): Promise<LaunchedPipeline> {
  const log = options.log ?? (() => {});
  const { layout, stack } = launchLayout(options);
  const appliances = options.appliances ?? demoAppliances;
  const appliers = demoAppliers(appliances, options.applierHealthPorts);
  const started: StackService[] = [];
  const startAll = async (services: readonly StackService[]): Promise<void> => {
    await Promise.all(
      services.map(async (s) => {
        log(`starting ${s.name}`);
        started.push(s);
        await s.start();
      }),
    );
  };
  const stop = async (): Promise<void> => {
    for (const s of [...started].reverse()) await s.stop();
  };
  try {
    const { endpoints, haproxy } = await startStackPhase(options, stack, appliances, startAll, log);
    const paths = haproxyPaths(stack);
    const haproxyInfo = {
      dir: paths.dir,
      masterSocket: paths.masterSocket,
      httpPort: stack.haproxyHttpPort,
      httpsPort: stack.haproxyHttpsPort,
      statsPort: stack.haproxyStatsPort,
    };
    writeDemoFiles(layout, {
      appliances,
      endpoints,
      haproxy: haproxyInfo,
      ...(options.bus ? { bus: options.bus } : {}),
      ...(options.leases ? { leases: options.leases } : {}),
      ...(options.heartbeatSeconds ? { heartbeatSeconds: options.heartbeatSeconds } : {}),
      ...(options.inputsHost === undefined ? {} : { applianceHost: options.inputsHost }),
    });
    const { inputs, services } = demoComponents(layout, componentSelection(options, appliances, appliers));
    await startAll(inputs);
    if (appliances.some((a) => a.driver === 'vtm'))
      await putDemoTrafficIpGroup(layout.ports.vtm, demoCredentials.vtm, options.inputsHost);
    if (options.manifests !== undefined) applyManifests(layout, options.manifests, log);
    await startAll(services);
    const components = new Map<string, StackService>(
      [...inputs, ...services, ...(started.includes(haproxy) || options.endpoints === undefined ? [haproxy] : [])].map(
        (s) => [s.name, s],
      ),
    );
    return { layout, stack, endpoints, haproxy: haproxyInfo, appliers, components, stop };
  } catch (e) {
    // The start failure is the error to report; a failure while cleaning up after it is logged beside it.
    await stop().catch((cleanup: unknown) => log(`stopping after a failed start: ${errorMessage(cleanup)}`));
    throw e;
  }
}

/** What the pipeline runs besides the stack, from the launch options. */
function componentSelection(
  options: PipelineLaunchOptions,
  appliances: readonly DemoAppliance[],
  appliers: readonly DemoApplier[],
): DemoSelection {
  return {
    appliances,
    appliers,
    echoAddresses: options.echoAddresses ?? [...demoBackends.web, ...demoBackends.api, ...demoBackends.canary],
    ...(options.codeRoot === undefined ? {} : { codeRoot: path.resolve(options.codeRoot) }),
    ...(options.sites === undefined ? {} : { sites: options.sites }),
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.inputsHost === undefined ? {} : { inputsHost: options.inputsHost }),
    ...(options.placement === undefined ? {} : { placement: options.placement }),
  };
}

/** Where the pipeline's files live and which ports its stack uses. */
function launchLayout(options: PipelineLaunchOptions): { readonly layout: DemoLayout; readonly stack: StackConfig } {
  const root = path.resolve(options.root);
  const layout = demoLayout(root, {
    ...(options.kubeconfig === undefined ? {} : { kubeconfig: path.resolve(options.kubeconfig) }),
    ...(options.ports ? { ports: options.ports } : {}),
  });
  const hp = options.haproxyPorts ?? {};
  const stack = stackConfig({
    stateDir: path.join(root, 'stack'),
    ...(hp.http ? { haproxyHttpPort: hp.http } : {}),
    ...(hp.https ? { haproxyHttpsPort: hp.https } : {}),
    ...(hp.stats ? { haproxyStatsPort: hp.stats } : {}),
  });
  return { layout, stack };
}

/**
 * The stack, or only HAProxy when the caller brings its own endpoints. HAProxy is started only when an appliance
 * uses it (a vTM-only test pipeline needs none); the handle is returned either way so `down` can stop it.
 */
async function startStackPhase(
  options: PipelineLaunchOptions,
  stack: StackConfig,
  appliances: readonly DemoAppliance[],
  startAll: (services: readonly StackService[]) => Promise<void>,
  log: (line: string) => void,
): Promise<{ readonly endpoints: StackEndpoints; readonly haproxy: StackService }> {
  if (options.endpoints === undefined) {
    const local = localStack({ config: stack, log });
    await local.up();
    return { endpoints: local.endpoints, haproxy: haproxyService(stack, 'haproxy') };
  }
  const wanted = appliances.some((a) => a.driver === 'haproxy');
  const binary = wanted ? ensureBinaries([stackBinaries.haproxy], stack.install, log).get('haproxy')! : 'haproxy';
  const haproxy = haproxyService(stack, binary);
  mkdirSync(stack.stateDir, { recursive: true });
  if (wanted) await startAll([haproxy]);
  return { endpoints: options.endpoints, haproxy };
}

/**
 * Stops the processes of a pipeline launched under `root` with these appliances and further sites (by pid file;
 * ports not needed): one by one, services before what they talk to; `together`, every service at once, then every
 * input at once (each Node process takes a moment to exit, and a two-site pipeline has a dozen).
 */
export async function stopPipeline(
  root: string,
  appliances: readonly DemoAppliance[] = demoAppliances,
  log: (line: string) => void = () => {},
  sites: readonly DemoSite[] = [],
  together = false,
): Promise<void> {
  const layout = demoLayout(path.resolve(root), {
    ports: { leaderHealth: UP_LEADER_HEALTH_PORT, ...UP_CONSOLE_PORTS },
  });
  const { inputs, services } = demoComponents(layout, {
    appliances,
    appliers: demoAppliers(appliances),
    echoAddresses: [...demoBackends.web],
    sites,
  });
  const stop = async (c: StackService): Promise<void> => {
    log(`stopping ${c.name}`);
    await c.stop();
  };
  if (together) {
    await Promise.all(services.map(stop));
    await Promise.all(inputs.map(stop));
    return;
  }
  for (const c of [...inputs, ...services].reverse()) await stop(c);
}

/** The kubectl binary (Debian package kubernetes-client). */
export function kubectlBinary(): string {
  const kubectl = findBinary({
    name: 'kubectl',
    debianPackage: 'kubernetes-client',
    candidates: ['/usr/bin/kubectl', '/usr/local/bin/kubectl'],
  });
  if (kubectl === null)
    throw new StackServiceError(
      'STACK_INSTALL_FAILED',
      'kubectl',
      'not installed; run: apt-get install -y kubernetes-client',
    );
  return kubectl;
}

function applyManifests(layout: DemoLayout, manifests: string, log: (line: string) => void): void {
  const file = path.join(layout.root, 'manifests.yaml');
  writeFileSync(file, manifests);
  log('applying manifests');
  execFileSync(kubectlBinary(), ['--kubeconfig', layout.kubeconfig, 'apply', '-f', file], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
