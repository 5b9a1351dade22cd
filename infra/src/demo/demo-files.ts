import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { StackConfig } from '../stack-config.ts';
import { stackEndpoints } from '../stack-config.ts';
import { haproxyPaths } from '../services/haproxy.ts';

/** Ports and files of the local demo (`portolan up`), all under one `.portolan` folder. */
export interface DemoLayout {
  readonly root: string;
  readonly fleetConfig: string;
  readonly kubeconfig: string;
  readonly keyFile: string;
  readonly vtmPasswordFile: string;
  readonly loadmasterPasswordFile: string;
  readonly kubeSimPort: number;
  readonly kubeSimState: string;
  readonly vtmPort: number;
  readonly loadmasterPort: number;
  /** Health ports: watcher, planner, then one per applier replica. */
  readonly healthPorts: { readonly watcher: number; readonly planner: number; readonly edgeA: number; readonly edgeB: number; readonly vtm: number; readonly loadmaster: number };
}

/** The demo layout under `root` (default `.portolan` in the working directory). */
export function demoLayout(root: string, overrides: { kubeconfig?: string; kubeSimPort?: number; vtmPort?: number; loadmasterPort?: number } = {}): DemoLayout {
  return {
    root,
    fleetConfig: path.join(root, 'fleet.yaml'),
    kubeconfig: overrides.kubeconfig ?? path.join(root, 'kubeconfig'),
    keyFile: path.join(root, 'secrets', 'fleet.key'),
    vtmPasswordFile: path.join(root, 'secrets', 'vtm.password'),
    loadmasterPasswordFile: path.join(root, 'secrets', 'loadmaster.password'),
    kubeSimPort: overrides.kubeSimPort ?? 16443,
    kubeSimState: path.join(root, 'kube-sim.json'),
    vtmPort: overrides.vtmPort ?? 9070,
    loadmasterPort: overrides.loadmasterPort ?? 9443,
    healthPorts: { watcher: 19101, planner: 19102, edgeA: 19103, edgeB: 19104, vtm: 19105, loadmaster: 19106 },
  };
}

/** Writes the fleet key (once), the emulators' local-only passwords and the fleet config of the demo. */
export function writeDemoFiles(layout: DemoLayout, stack: StackConfig): void {
  mkdirSync(path.dirname(layout.keyFile), { recursive: true, mode: 0o700 });
  if (!existsSync(layout.keyFile)) writeFileSync(layout.keyFile, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  // Local stack only: the emulators' documented demo credentials.
  writeFileSync(layout.vtmPasswordFile, 'admin\n', { mode: 0o600 });
  writeFileSync(layout.loadmasterPasswordFile, 'portolan\n', { mode: 0o600 });
  const endpoints = stackEndpoints(stack);
  const haproxy = haproxyPaths(stack);
  writeFileSync(layout.fleetConfig, `# Written by \`portolan up\` for the local demo.
version: 1
clusters:
  - name: local
    kubeconfig: ${layout.kubeconfig}
    namespaces: all-except-kube-system
    watch: { heartbeatSeconds: 2 }
appliances:
  - name: edge
    driver: haproxy
    ingressControllers: [portolan.dev/ingress-controller]
    haproxy:
      configDir: ${haproxy.dir}
      masterSocket: ${haproxy.masterSocket}
      address: 127.0.0.1
      httpPort: ${stack.haproxyHttpPort}
      httpsPort: ${stack.haproxyHttpsPort}
  - name: vtm
    driver: vtm
    ingressControllers: [pulsesecure.net/vtm-ingress-controller]
    vtm:
      url: http://127.0.0.1:${layout.vtmPort}
      username: admin
      passwordFile: ${layout.vtmPasswordFile}
      defaultTrafficIpGroup: portolan-default
  - name: loadmaster
    driver: loadmaster
    ingressControllers: [portolan.dev/loadmaster]
    loadmaster:
      url: https://127.0.0.1:${layout.loadmasterPort}
      username: bal
      passwordFile: ${layout.loadmasterPasswordFile}
      mode: ingress
      insecureTls: true
      defaultAddress: 127.0.0.1
bus:
  url: ${endpoints.natsUrl}
store:
  url: ${endpoints.postgresUrl}
leases:
  redisUrl: ${endpoints.redisUrl}
secrets:
  keyFile: ${layout.keyFile}
`);
}
