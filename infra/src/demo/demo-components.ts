import { existsSync } from 'node:fs';
import path from 'node:path';
import { StackServiceError } from '../errors.ts';
import { isPortOpen } from '../process-control.ts';
import { daemonService, type StackService } from '../services/daemon-service.ts';
import type { DemoAppliance } from './demo-fleet-config.ts';
import { demoCluster } from './demo-fleet-config.ts';
import type { DemoApplier, DemoLayout } from './demo-files.ts';

const repoRoot = path.resolve(import.meta.dirname, '..', '..', '..');
const cliBin = path.join(repoRoot, 'packages', 'cli', 'bin', 'portolan.js');
const serviceMain = (name: string): string => path.join(repoRoot, 'services', name, 'src', 'main.ts');

/** What a demo pipeline runs besides the stack: which emulators, which echo backends, which applier replicas. */
export interface DemoSelection {
  readonly appliances: readonly DemoAppliance[];
  readonly appliers: readonly DemoApplier[];
  /** Loopback addresses of the echo backends (one process serves them all on `layout.ports.echo`); empty = none. */
  readonly echoAddresses: readonly string[];
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
  const node = process.execPath;
  const p = layout.ports;
  const health = (port: number) => async (): Promise<boolean> => {
    try {
      return (await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(1000) })).ok;
    } catch {
      return false;
    }
  };
  const daemon = (name: string, port: number, args: string[], healthy: () => Promise<boolean>): StackService => {
    const entry = args[0]!;
    if (!existsSync(entry))
      throw new StackServiceError(
        'STACK_START_FAILED',
        name,
        `entry point ${path.relative(repoRoot, entry)} does not exist`,
      );
    return daemonService({ name, port, dir: layout.runDir, command: node, args, healthy, startTimeoutMs: 60_000 });
  };
  const cfg = ['--config', layout.fleetConfig];
  const uses = (driver: DemoAppliance['driver']): boolean => selection.appliances.some((a) => a.driver === driver);
  const inputs = [
    daemon(
      'kube-sim',
      p.kubeSim,
      [
        cliBin,
        'kube-sim',
        '--port',
        String(p.kubeSim),
        '--kubeconfig',
        layout.kubeconfig,
        '--state',
        layout.kubeSimState,
      ],
      async () => existsSync(layout.kubeconfig) && isPortOpen(p.kubeSim),
    ),
    ...(selection.echoAddresses.length === 0
      ? []
      : [
          daemon(
            'echo-backends',
            p.echo,
            [cliBin, 'echo-backends', '--listen', selection.echoAddresses.map((a) => `${a}:${p.echo}`).join(',')],
            () => isPortOpen(p.echo, selection.echoAddresses[0]),
          ),
        ]),
    ...(uses('vtm')
      ? [
          daemon(
            'vtm-emulator',
            p.vtm,
            [
              cliBin,
              'emulate',
              'vtm',
              '--port',
              String(p.vtm),
              '--user',
              'admin',
              '--password-file',
              layout.vtmPasswordFile,
              '--state',
              path.join(layout.root, 'vtm-emulator.json'),
            ],
            () => isPortOpen(p.vtm),
          ),
        ]
      : []),
    ...(uses('loadmaster')
      ? [
          daemon(
            'loadmaster-emulator',
            p.loadmaster,
            [
              cliBin,
              'emulate',
              'loadmaster',
              '--port',
              String(p.loadmaster),
              '--user',
              'bal',
              '--password-file',
              layout.loadmasterPasswordFile,
              '--state',
              path.join(layout.root, 'loadmaster-emulator.json'),
            ],
            () => isPortOpen(p.loadmaster),
          ),
        ]
      : []),
  ];
  const services = [
    daemon(
      'watcher',
      p.watcherHealth,
      [serviceMain('watcher'), ...cfg, '--cluster', demoCluster, '--health-port', String(p.watcherHealth)],
      health(p.watcherHealth),
    ),
    daemon(
      'planner',
      p.plannerHealth,
      [serviceMain('planner'), ...cfg, '--health-port', String(p.plannerHealth)],
      health(p.plannerHealth),
    ),
    ...selection.appliers.map((r) =>
      daemon(
        `applier-${r.id}`,
        r.healthPort,
        [
          serviceMain('applier'),
          ...cfg,
          '--appliance',
          r.appliance,
          '--id',
          r.id,
          '--health-port',
          String(r.healthPort),
        ],
        health(r.healthPort),
      ),
    ),
  ];
  return { inputs, services };
}
