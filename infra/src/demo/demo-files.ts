import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { hashToken, newToken } from '@portolan/access/tokens';
import { demoFleetConfig, type DemoFleetInputs } from './demo-fleet-config.ts';

/** One applier replica of a demo appliance, with its health port. */
export interface DemoApplier {
  readonly appliance: string;
  readonly id: string;
  readonly healthPort: number;
}

/** Every port of a demo pipeline (HAProxy's are in the fleet inputs). */
export interface DemoPorts {
  readonly kubeSim: number;
  readonly vtm: number;
  readonly loadmaster: number;
  /** The port every echo backend listens on (each on its own loopback address). */
  readonly echo: number;
  readonly watcherHealth: number;
  readonly plannerHealth: number;
  /** The leader service's health port; absent, no leader service runs (a test pipeline asks for one explicitly). */
  readonly leaderHealth?: number;
  /** The console's API and UI port, and its health port; absent, no console runs. */
  readonly console?: number;
  readonly consoleHealth?: number;
}

/** Ports and files of a demo pipeline (`portolan up`, or an end-to-end test), all under one folder. */
export interface DemoLayout {
  readonly root: string;
  /** Logs and pid files of every pipeline process. */
  readonly runDir: string;
  readonly fleetConfig: string;
  readonly kubeconfig: string;
  readonly keyFile: string;
  readonly vtmPasswordFile: string;
  readonly loadmasterPasswordFile: string;
  readonly kubeSimState: string;
  /** The vTM emulator's audit log: every write with the epoch and snapshot it carried, one JSON line each. */
  readonly vtmAuditLog: string;
  /** The console tokens of the demo's operator and viewer (mode 0600; the fleet config keeps their hashes). */
  readonly operatorTokenFile: string;
  readonly viewerTokenFile: string;
  readonly ports: DemoPorts;
  /** The same as `ports.kubeSim`, `ports.vtm` and `ports.loadmaster` (what `portolan up` prints). */
  readonly kubeSimPort: number;
  readonly vtmPort: number;
  readonly loadmasterPort: number;
}

/** The leader service's health port under `portolan up` (tests give their own, or run none). */
export const UP_LEADER_HEALTH_PORT = 19100;

/** The console's port and its health port under `portolan up`. */
export const UP_CONSOLE_PORTS = { console: 8480, consoleHealth: 19111 } as const;

/** `portolan up`'s fixed ports, used unless overridden. */
export const defaultDemoPorts: DemoPorts = {
  kubeSim: 16443,
  vtm: 9070,
  loadmaster: 9443,
  echo: 9000,
  watcherHealth: 19101,
  plannerHealth: 19102,
};

/** The demo layout under `root` (default `.portolan` in the working directory). */
export function demoLayout(
  root: string,
  overrides: { kubeconfig?: string; ports?: Partial<DemoPorts> } = {},
): DemoLayout {
  const ports = { ...defaultDemoPorts, ...overrides.ports };
  return {
    root,
    runDir: path.join(root, 'run'),
    fleetConfig: path.join(root, 'fleet.yaml'),
    kubeconfig: overrides.kubeconfig ?? path.join(root, 'kubeconfig'),
    keyFile: path.join(root, 'secrets', 'fleet.key'),
    vtmPasswordFile: path.join(root, 'secrets', 'vtm.password'),
    loadmasterPasswordFile: path.join(root, 'secrets', 'loadmaster.password'),
    kubeSimState: path.join(root, 'kube-sim.json'),
    vtmAuditLog: path.join(root, 'vtm-emulator-audit.log'),
    operatorTokenFile: path.join(root, 'operator.token'),
    viewerTokenFile: path.join(root, 'viewer.token'),
    ports,
    kubeSimPort: ports.kubeSim,
    vtmPort: ports.vtm,
    loadmasterPort: ports.loadmaster,
  };
}

/** The emulators' documented local-only demo credentials (never used for a real appliance). */
export const demoCredentials = {
  vtm: { user: 'admin', password: 'admin' },
  loadmaster: { user: 'bal', password: 'portolan' },
} as const;

/**
 * Writes the fleet key (once), the emulators' local-only passwords, the console's operator and viewer tokens (once:
 * they survive a restart) and the fleet config of the demo.
 */
export function writeDemoFiles(layout: DemoLayout, inputs: Omit<DemoFleetInputs, 'layout'>): void {
  mkdirSync(path.dirname(layout.keyFile), { recursive: true, mode: 0o700 });
  mkdirSync(layout.runDir, { recursive: true });
  if (!existsSync(layout.keyFile))
    writeFileSync(layout.keyFile, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  writeFileSync(layout.vtmPasswordFile, `${demoCredentials.vtm.password}\n`, { mode: 0o600 });
  writeFileSync(layout.loadmasterPasswordFile, `${demoCredentials.loadmaster.password}\n`, { mode: 0o600 });
  const consoleSection =
    layout.ports.console === undefined
      ? undefined
      : {
          listen: `127.0.0.1:${layout.ports.console}`,
          tokens: [
            { name: 'operator', role: 'operator' as const, sha256: hashToken(tokenIn(layout.operatorTokenFile)) },
            { name: 'viewer', role: 'viewer' as const, sha256: hashToken(tokenIn(layout.viewerTokenFile)) },
          ],
        };
  writeFileSync(
    layout.fleetConfig,
    demoFleetConfig({ ...inputs, layout, ...(consoleSection === undefined ? {} : { console: consoleSection }) }),
  );
}

/** The token kept in `file`, made (and written, mode 0600) when there is none. */
function tokenIn(file: string): string {
  if (existsSync(file)) {
    const kept = readFileSync(file, 'utf8').trim();
    if (kept !== '') return kept;
  }
  const token = newToken();
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return token;
}
