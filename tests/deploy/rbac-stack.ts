// What the RBAC end-to-end test runs the services in: a simulator holding the RBAC objects the single-site
// overlay renders, a ServiceAccount token per service written where a pod finds it, a fleet config whose cluster
// has no kubeconfig (the services' in-cluster path), and the watcher, planner and applier as real processes.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { freePort, kubectlBinary, testStack } from '@portolan/infra';
import { startKubeSim, type KubeSim } from '@portolan/kube-sim';
import { startLoadMasterEmulator, type LoadMasterEmulator } from '@portolan/loadmaster-emulator';
import { createTestDatabase, type TestDatabase } from '@portolan/store';
import { cleanUp } from '../e2e/pipeline-processes.ts';
import { eventually } from '../e2e/eventually.ts';
import { render, type Manifest } from './render.ts';

const repo = path.resolve(import.meta.dirname, '..', '..');
const rbacKinds = new Set(['Namespace', 'ServiceAccount', 'Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);

/** The namespace, ServiceAccounts, roles and bindings the single-site overlay renders. */
export const renderedRbac: readonly Manifest[] = render('single-site').filter((m) => rbacKinds.has(m.kind));

/** Runs kubectl with the admin kubeconfig (asynchronously: the simulator lives in this process). */
export function kubectl(kubeconfig: string, args: readonly string[], input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(kubectlBinary(), ['--kubeconfig', kubeconfig, ...args]);
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`kubectl ${args.join(' ')}: ${err}`))));
    child.stdin.end(input ?? '');
  });
}

/** One service process: its log so far, and how to stop it. */
export interface ServiceProcess {
  readonly healthPort: number;
  log(): string;
  stop(): Promise<void>;
}

/** The simulator with the rendered RBAC, the stack the services share, and where each service's token lives. */
export interface RbacStack {
  readonly root: string;
  readonly sim: KubeSim;
  readonly kubeconfig: string;
  readonly fleetConfig: string;
  readonly appliance: string;
  readonly loadmaster: LoadMasterEmulator;
  /** The folder standing in for `/` of the service's pod (its token under var/run/secrets/...). */
  serviceAccountRoot(service: 'watcher' | 'applier'): string;
  /** The environment of a pod of the service: in-cluster API address and its service-account folder. */
  podEnv(service: 'watcher' | 'applier' | 'planner'): NodeJS.ProcessEnv;
  /** Starts `services/<name>/src/main.ts` with the fleet config, as the Deployment does, and waits for /healthz. */
  startService(name: 'watcher' | 'applier' | 'planner'): Promise<ServiceProcess>;
  close(): Promise<void>;
}

/** Writes a pod's service-account folder (`token`, `ca.crt`, `namespace`) under `root`. */
function writeServiceAccount(root: string, token: string, caPem: string): void {
  const dir = path.join(root, 'var', 'run', 'secrets', 'kubernetes.io', 'serviceaccount');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'token'), token);
  writeFileSync(path.join(dir, 'ca.crt'), caPem);
  writeFileSync(path.join(dir, 'namespace'), 'portolan');
}

function fleetConfigYaml(o: {
  appliance: string;
  lmPort: number;
  passwordFile: string;
  keyFile: string;
  natsUrl: string;
  suffix: string;
  postgresUrl: string;
  redisUrl: string;
}): string {
  const q = JSON.stringify;
  return `version: 1
clusters:
  - name: local
    secretLabelSelector: portolan.dev/tls=true
    watch: { heartbeatSeconds: 2 }
appliances:
  - name: ${o.appliance}
    driver: loadmaster
    ingressControllers: ["portolan.dev/ingress-controller"]
    loadmaster:
      url: https://127.0.0.1:${o.lmPort}
      username: bal
      passwordFile: ${q(o.passwordFile)}
      mode: ingress
      insecureTls: true
      defaultAddress: 127.0.0.1
bus:
  url: ${q(o.natsUrl)}
  stream: E2E_${o.suffix}
  subjectPrefix: e2e${o.suffix}
store:
  url: ${q(o.postgresUrl)}
leases:
  redisUrl: ${q(o.redisUrl)}
secrets:
  keyFile: ${q(o.keyFile)}
`;
}

/** Starts the simulator, applies the rendered RBAC with kubectl, issues the tokens and writes the fleet config. */
export async function startRbacStack(): Promise<RbacStack> {
  const stack = await testStack();
  const suffix = randomBytes(3).toString('hex');
  const root = mkdtempSync(path.join(os.tmpdir(), 'ptl-rbac-'));
  const sim = await startKubeSim();
  const kubeconfig = path.join(root, 'kubeconfig');
  await sim.writeKubeconfig(kubeconfig);
  try {
    await kubectl(kubeconfig, ['apply', '-f', '-'], renderedRbac.map((m) => stringify(m)).join('---\n'));
  } catch (e) {
    await sim.close();
    rmSync(root, { recursive: true, force: true });
    throw e;
  }
  for (const service of ['watcher', 'applier'] as const)
    writeServiceAccount(
      path.join(root, service),
      sim.issueServiceAccountToken('portolan', `portolan-${service}`),
      sim.caPem ?? '',
    );
  const loadmaster = await startLoadMasterEmulator({ port: 0, users: { bal: 'portolan' }, https: true });
  const database: TestDatabase = await createTestDatabase(stack.postgresUrl);
  const appliance = `edge-${suffix}`;
  const fleetConfig = path.join(root, 'fleet.yaml');
  writeFileSync(path.join(root, 'lm-password'), 'portolan\n');
  writeFileSync(path.join(root, 'fleet.key'), `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  writeFileSync(
    fleetConfig,
    fleetConfigYaml({
      appliance,
      lmPort: loadmaster.port,
      passwordFile: path.join(root, 'lm-password'),
      keyFile: path.join(root, 'fleet.key'),
      natsUrl: stack.natsUrl,
      suffix,
      postgresUrl: database.url,
      redisUrl: stack.redisUrl,
    }),
  );
  const processes = new Set<ServiceProcess>();
  const podEnv = (service: 'watcher' | 'applier' | 'planner'): NodeJS.ProcessEnv => ({
    ...process.env,
    KUBERNETES_SERVICE_HOST: '127.0.0.1',
    KUBERNETES_SERVICE_PORT: String(sim.port),
    // The planner mounts no token (automountServiceAccountToken: false): it gets no folder at all.
    PORTOLAN_SERVICE_ACCOUNT_ROOT: path.join(root, service === 'planner' ? 'none' : service),
  });
  return {
    root,
    sim,
    kubeconfig,
    fleetConfig,
    appliance,
    loadmaster,
    serviceAccountRoot: (service) => path.join(root, service),
    podEnv,
    async startService(name) {
      const proc = await startProcess(name, fleetConfig, appliance, podEnv(name));
      processes.add(proc);
      return proc;
    },
    async close() {
      for (const p of processes) await p.stop();
      await loadmaster.close();
      await sim.close();
      await cleanUp(database, stack.natsUrl, `E2E_${suffix}`, root);
    },
  };
}

async function startProcess(
  name: 'watcher' | 'applier' | 'planner',
  fleetConfig: string,
  appliance: string,
  env: NodeJS.ProcessEnv,
): Promise<ServiceProcess> {
  const healthPort = await freePort();
  const extra = name === 'watcher' ? ['--cluster', 'local'] : name === 'applier' ? ['--appliance', appliance] : [];
  const args = [path.join(repo, 'services', name, 'src', 'main.ts'), '--config', fleetConfig, ...extra];
  if (name === 'applier') args.push('--id', `${appliance}-a`);
  const child: ChildProcess = spawn(process.execPath, [...args, '--health-port', String(healthPort)], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const proc: ServiceProcess = {
    healthPort,
    log: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
  try {
    await eventually(
      `${name} answers /healthz`,
      async () => {
        if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
        const res = await fetch(`http://127.0.0.1:${healthPort}/healthz`);
        if (!res.ok) throw new Error(`/healthz ${res.status}`);
      },
      { timeoutMs: 30_000, context: () => output },
    );
  } catch (e) {
    await proc.stop();
    throw e;
  }
  return proc;
}
