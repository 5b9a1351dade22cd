import { execFileSync } from 'node:child_process';
import http from 'node:http';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { localStack } from '../local-stack.ts';
import { isPortOpen, waitFor } from '../process-control.ts';
import { daemonService, type StackService } from '../services/daemon-service.ts';
import { findBinary } from '../system-packages.ts';
import { StackServiceError } from '../errors.ts';
import { demoLayout, writeDemoFiles, type DemoLayout } from './demo-files.ts';
import { demoBackends, sampleManifests } from './sample-manifests.ts';

/** Options of `portolan up`. */
export interface UpOptions {
  /** Folder for all demo state (default `.portolan` under the working directory). */
  readonly root?: string;
  readonly kubeconfig?: string;
  readonly httpPort?: number;
  readonly httpsPort?: number;
  readonly log?: (line: string) => void;
}

/** What `portolan up` prints. */
export interface UpResult {
  readonly layout: DemoLayout;
  readonly httpUrl: string;
  readonly httpsUrl: string;
  readonly serving: boolean;
}

const repoRoot = path.resolve(import.meta.dirname, '..', '..', '..');
const cliBin = path.join(repoRoot, 'packages', 'cli', 'bin', 'portolan.js');
const serviceMain = (name: string): string => path.join(repoRoot, 'services', name, 'src', 'main.ts');

/** Every demo process after the stack, in start order. */
function components(layout: DemoLayout): StackService[] {
  const logs = path.join(layout.root, 'run');
  const node = process.execPath;
  const health = (port: number) => async (): Promise<boolean> => {
    try {
      return (await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(1000) })).ok;
    } catch {
      return false;
    }
  };
  const daemon = (name: string, port: number, args: string[], healthy: () => Promise<boolean>): StackService => {
    const entry = args[0]!;
    if (!existsSync(entry)) throw new StackServiceError('STACK_START_FAILED', name, `entry point ${path.relative(repoRoot, entry)} does not exist`);
    return daemonService({ name, port, dir: logs, command: node, args, healthy, startTimeoutMs: 60_000 });
  };
  const cfg = ['--config', layout.fleetConfig];
  const h = layout.healthPorts;
  return [
    daemon('kube-sim', layout.kubeSimPort, [cliBin, 'kube-sim', '--port', String(layout.kubeSimPort), '--kubeconfig', layout.kubeconfig, '--state', layout.kubeSimState], async () => existsSync(layout.kubeconfig) && isPortOpen(layout.kubeSimPort)),
    daemon('echo-backends', demoBackends.port, [cliBin, 'echo-backends', '--listen', [...demoBackends.web, ...demoBackends.api].map((a) => `${a}:${demoBackends.port}`).join(',')], () => isPortOpen(demoBackends.port, demoBackends.web[0])),
    daemon('vtm-emulator', layout.vtmPort, [cliBin, 'emulate', 'vtm', '--port', String(layout.vtmPort), '--user', 'admin', '--password-file', layout.vtmPasswordFile, '--state', path.join(layout.root, 'vtm-emulator.json')], () => isPortOpen(layout.vtmPort)),
    daemon('loadmaster-emulator', layout.loadmasterPort, [cliBin, 'emulate', 'loadmaster', '--port', String(layout.loadmasterPort), '--user', 'bal', '--password-file', layout.loadmasterPasswordFile, '--state', path.join(layout.root, 'loadmaster-emulator.json')], () => isPortOpen(layout.loadmasterPort)),
    daemon('watcher', h.watcher, [serviceMain('watcher'), ...cfg, '--cluster', 'local', '--health-port', String(h.watcher)], health(h.watcher)),
    daemon('planner', h.planner, [serviceMain('planner'), ...cfg, '--health-port', String(h.planner)], health(h.planner)),
    daemon('applier-edge-a', h.edgeA, [serviceMain('applier'), ...cfg, '--appliance', 'edge', '--id', 'edge-a', '--health-port', String(h.edgeA)], health(h.edgeA)),
    daemon('applier-edge-b', h.edgeB, [serviceMain('applier'), ...cfg, '--appliance', 'edge', '--id', 'edge-b', '--health-port', String(h.edgeB)], health(h.edgeB)),
    daemon('applier-vtm', h.vtm, [serviceMain('applier'), ...cfg, '--appliance', 'vtm', '--id', 'vtm-a', '--health-port', String(h.vtm)], health(h.vtm)),
    daemon('applier-loadmaster', h.loadmaster, [serviceMain('applier'), ...cfg, '--appliance', 'loadmaster', '--id', 'loadmaster-a', '--health-port', String(h.loadmaster)], health(h.loadmaster)),
  ];
}

/** Starts the stack, the simulator, the emulators, echo backends and the pipeline; applies the sample manifests. */
export async function portolanUp(options: UpOptions = {}): Promise<UpResult> {
  const log = options.log ?? (() => {});
  const root = path.resolve(options.root ?? path.join(process.cwd(), '.portolan'));
  const layout = demoLayout(root, options.kubeconfig === undefined ? {} : { kubeconfig: path.resolve(options.kubeconfig) });
  const stack = localStack({ config: { stateDir: path.join(root, 'stack'), ...(options.httpPort ? { haproxyHttpPort: options.httpPort } : {}), ...(options.httpsPort ? { haproxyHttpsPort: options.httpsPort } : {}) }, log });
  await stack.up();
  mkdirSync(path.join(root, 'run'), { recursive: true });
  writeDemoFiles(layout, stack.config);
  for (const c of components(layout)) {
    log(`starting ${c.name}`);
    await c.start();
    if (c.name === 'kube-sim') applyManifests(layout, log);
  }
  const httpUrl = `http://127.0.0.1:${stack.config.haproxyHttpPort}`;
  const serving = await waitFor(async () => (await statusWithHost(`${httpUrl}/`, 'demo.local')) === 200, 60_000, 250);
  return { layout, httpUrl, httpsUrl: `https://127.0.0.1:${stack.config.haproxyHttpsPort}`, serving };
}

/** Stops every demo process, then the stack (data is kept). */
export async function portolanDown(options: { root?: string; log?: (line: string) => void } = {}): Promise<void> {
  const root = path.resolve(options.root ?? path.join(process.cwd(), '.portolan'));
  const layout = demoLayout(root);
  const all = (() => {
    try {
      return components(layout);
    } catch {
      return [];
    }
  })();
  for (const c of all.reverse()) {
    options.log?.(`stopping ${c.name}`);
    await c.stop();
  }
  await localStack({ config: { stateDir: path.join(root, 'stack') } }).down();
}

function applyManifests(layout: DemoLayout, log: (line: string) => void): void {
  const kubectl = findBinary({ name: 'kubectl', debianPackage: 'kubernetes-client', candidates: ['/usr/bin/kubectl', '/usr/local/bin/kubectl'] });
  if (kubectl === null) throw new StackServiceError('STACK_INSTALL_FAILED', 'kubectl', 'not installed; run: apt-get install -y kubernetes-client');
  const file = path.join(layout.root, 'sample-manifests.yaml');
  writeFileSync(file, sampleManifests());
  log('applying sample manifests');
  execFileSync(kubectl, ['--kubeconfig', layout.kubeconfig, 'apply', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
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
