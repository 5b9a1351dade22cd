import { existsSync } from 'node:fs';
import path from 'node:path';
import { StackServiceError } from '../errors.ts';
import { isPortOpen } from '../process-control.ts';
import { daemonService, type StackService } from '../services/daemon-service.ts';
import type { DemoAppliance } from './demo-fleet-config.ts';
import { demoCluster } from './demo-fleet-config.ts';
import type { DemoApplier, DemoLayout } from './demo-files.ts';

const repoRoot = path.resolve(import.meta.dirname, '..', '..', '..');
/** The `portolan` command of the code at `root`. */
const cliBinOf = (root: string): string => path.join(root, 'packages', 'cli', 'bin', 'portolan.js');
/** A service's entry point in the code at `root`. */
const serviceMainOf = (root: string, name: string): string => path.join(root, 'services', name, 'src', 'main.ts');

/** What a demo pipeline runs besides the stack: which emulators, which echo backends, which applier replicas. */
export interface DemoSelection {
  readonly appliances: readonly DemoAppliance[];
  readonly appliers: readonly DemoApplier[];
  /** Loopback addresses of the echo backends (one process serves them all on `layout.ports.echo`); empty = none. */
  readonly echoAddresses: readonly string[];
  /** The code the processes run (default: this checkout); e.g. a production-only install of the same sources. */
  readonly codeRoot?: string;
  /** Variables added to the environment of the services (watchers, planners, appliers), e.g. `OTEL_*` for traces. */
  readonly env?: Readonly<Record<string, string>>;
  /** Further sites, each with its own watcher and planner (`watcher-<site>`, `planner-<site>`) beside the first's. */
  readonly sites?: readonly DemoSite[];
  /** The address the simulator and the emulators listen on (default: their own default, 127.0.0.1). */
  readonly inputsHost?: string;
  /** Runs a service (by name) in another network namespace; undefined: here, its health port on 127.0.0.1. */
  readonly placement?: (service: string) => ServicePlacement | undefined;
}

/** Where a service runs: the command prefix entering its namespace (the pid stays the same), and its address there. */
export interface ServicePlacement {
  readonly exec: readonly string[];
  readonly address: string;
}

/** A further site of a pipeline: its name and its watcher's and planner's health ports. */
export interface DemoSite {
  readonly name: string;
  readonly watcherHealth: number;
  readonly plannerHealth: number;
}

/**
 * The pipeline's processes in two start phases: first what the services talk to (simulator, echo backends, the
 * emulators the appliances need), then the services (watcher, planner, appliers). Names are stable: they name
 * the pid and log files under `layout.runDir`, so `portolan down` finds them again.
 */
export function demoComponents(
  layout: DemoLayout,
  selection: DemoSelection,
): { readonly inputs: StackService[]; readonly services: StackService[] } {
  const daemon = daemonFactory(layout);
  return { inputs: inputComponents(layout, selection, daemon), services: serviceComponents(layout, selection, daemon) };
}

type Daemon = (
  name: string,
  port: number,
  args: string[],
  healthy: () => Promise<boolean>,
  env?: Readonly<Record<string, string>>,
  place?: ServicePlacement,
) => StackService;

/** Builds a node daemon from its entry point (checked to exist, so a broken checkout fails with the name). */
function daemonFactory(layout: DemoLayout): Daemon {
  return (name, port, args, healthy, env, place) => {
    const entry = args[0]!;
    if (!existsSync(entry)) {
      const where = path.relative(repoRoot, entry);
      throw new StackServiceError('STACK_START_FAILED', name, `entry point ${where} does not exist`);
    }
    const [command, ...prefix] = place === undefined ? [process.execPath] : [...place.exec, process.execPath];
    const extra = {
      ...(env === undefined ? {} : { env }),
      ...(place === undefined ? {} : { host: place.address }),
    };
    const spec = { name, port, dir: layout.runDir, command: command!, args: [...prefix, ...args], healthy };
    return daemonService({ ...spec, startTimeoutMs: 60_000, ...extra });
  };
}

/** True once the service's health endpoint answers 200; false while it cannot be reached or is not ready. */
function healthOf(port: number, host = '127.0.0.1'): () => Promise<boolean> {
  return async () => {
    try {
      return (await fetch(`http://${host}:${port}/healthz`, { signal: AbortSignal.timeout(1000) })).ok;
    } catch {
      // Not listening yet, or not answering within the second: the starter polls again.
      return false;
    }
  };
}

function inputComponents(layout: DemoLayout, selection: DemoSelection, daemon: Daemon): StackService[] {
  const p = layout.ports;
  const cliBin = cliBinOf(selection.codeRoot ?? repoRoot);
  const uses = (driver: DemoAppliance['driver']): boolean => selection.appliances.some((a) => a.driver === driver);
  const host = selection.inputsHost ?? '127.0.0.1';
  const hostArgs = selection.inputsHost === undefined ? [] : ['--host', selection.inputsHost];
  const emulator = (kind: 'vtm' | 'loadmaster', port: number, user: string, passwordFile: string): StackService =>
    daemon(
      `${kind}-emulator`,
      port,
      [cliBin, 'emulate', kind, '--port', String(port), '--user', user, '--password-file', passwordFile].concat(
        ['--state', path.join(layout.root, `${kind}-emulator.json`)],
        kind === 'vtm' ? ['--audit-log', layout.vtmAuditLog] : [],
        hostArgs,
      ),
      () => isPortOpen(port, host),
    );
  const kubeSimArgs = ['--port', String(p.kubeSim), '--kubeconfig', layout.kubeconfig, '--state', layout.kubeSimState];
  kubeSimArgs.push(...hostArgs);
  const echoListen = selection.echoAddresses.map((a) => `${a}:${p.echo}`).join(',');
  return [
    daemon('kube-sim', p.kubeSim, [cliBin, 'kube-sim', ...kubeSimArgs], async () => {
      return existsSync(layout.kubeconfig) && isPortOpen(p.kubeSim, host);
    }),
    ...(selection.echoAddresses.length === 0
      ? []
      : [
          daemon('echo-backends', p.echo, [cliBin, 'echo-backends', '--listen', echoListen], () =>
            isPortOpen(p.echo, selection.echoAddresses[0]),
          ),
        ]),
    ...(uses('vtm') ? [emulator('vtm', p.vtm, 'admin', layout.vtmPasswordFile)] : []),
    ...(uses('loadmaster') ? [emulator('loadmaster', p.loadmaster, 'bal', layout.loadmasterPasswordFile)] : []),
  ];
}

function serviceComponents(layout: DemoLayout, selection: DemoSelection, daemon: Daemon): StackService[] {
  const p = layout.ports;
  const cfg = ['--config', layout.fleetConfig];
  const service = (name: string, port: number, args: string[]): StackService => {
    const place = selection.placement?.(name);
    return daemon(
      name,
      port,
      [
        serviceMainOf(selection.codeRoot ?? repoRoot, name.replace(/-.*/, '')),
        ...cfg,
        ...args,
        '--health-port',
        String(port),
      ],
      healthOf(port, place?.address),
      selection.env,
      place,
    );
  };
  return [
    service('watcher', p.watcherHealth, ['--cluster', demoCluster]),
    service('planner', p.plannerHealth, []),
    ...(p.leaderHealth === undefined ? [] : [service('leader', p.leaderHealth, [])]),
    ...(p.console === undefined || p.consoleHealth === undefined
      ? []
      : [service('console', p.consoleHealth, ['--listen', `127.0.0.1:${p.console}`])]),
    ...(selection.sites ?? []).flatMap((site) => [
      service(`watcher-${site.name}`, site.watcherHealth, ['--cluster', demoCluster]),
      service(`planner-${site.name}`, site.plannerHealth, []),
    ]),
    ...selection.appliers.map((r) =>
      service(`applier-${r.id}`, r.healthPort, ['--appliance', r.appliance, '--id', r.id]),
    ),
  ];
}
