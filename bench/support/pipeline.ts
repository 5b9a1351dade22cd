// The whole pipeline for pipeline-level figures: the API simulator (in this process, so a change's start instant is
// exact), a private HAProxy, the shared test stack's Postgres (fresh database), NATS (own stream and subject prefix)
// and Redis, and the real watcher, planner and applier processes (their main.ts, as `portolan up` runs them).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { busDeclaration, NatsEventBus } from '@portolan/bus';
import { startEchoBackends, type EchoBackends } from '@portolan/echo-backend';
import { startHaproxy, type RunningHaproxy } from '@portolan/haproxy-driver';
import { freePort, testStack } from '@portolan/infra';
import { startKubeSim, type KubeObject, type KubeSim } from '@portolan/kube-sim';
import { createTestDatabase, type TestDatabase } from '@portolan/store';
import { startService, tail, type ServiceProcess } from './processes.ts';
import { namespaces } from './world.ts';

const root = path.resolve(import.meta.dirname, '..', '..');
const entry = (service: string): string => path.join(root, 'services', service, 'src', 'main.ts');

/** How to build a pipeline. */
export interface PipelineOptions {
  /** Objects the simulator holds before any service starts (after the namespaces). */
  readonly objects: readonly KubeObject[];
  /** Echo backends to start on 127.0.2.<n> for probe Services (default 8). */
  readonly echoBackends?: number;
  /** Lease timings (fleet config `leases`); the fleet-config defaults when omitted. */
  readonly leases?: { readonly ttlMs: number; readonly renewEveryMs: number; readonly retryEveryMs: number };
  /** Extra node flags per service name (`--cpu-prof` …). */
  readonly nodeFlags?: Readonly<Record<string, readonly string[]>>;
}

/** A running pipeline. */
export interface Pipeline extends AsyncDisposable {
  readonly dir: string;
  readonly appliance: string;
  readonly fleetConfig: string;
  readonly sim: KubeSim;
  readonly db: TestDatabase;
  readonly haproxy: RunningHaproxy;
  readonly httpPort: number;
  readonly httpsPort: number;
  readonly echo: EchoBackends;
  readonly processes: Map<string, ServiceProcess>;
  /** Starts the watcher, the planner and applier replicas `a` and `b` at once. */
  startAll(): void;
  /** Starts (or restarts) one service: `watcher`, `planner` or `applier-<id>`. */
  start(name: string): ServiceProcess;
  /** The last log lines of every service, for error messages. */
  logs(): string;
  stop(): Promise<void>;
}

/** Builds everything except the services (start them with `startAll`, so a cold start can be timed). */
export async function createPipeline(o: PipelineOptions): Promise<Pipeline> {
  const id = randomBytes(4).toString('hex');
  const appliance = `bench-${id}`;
  const stream = `BENCH_${id.toUpperCase()}`;
  const dir = mkdtempSync(path.join(tmpdir(), 'portolan-bench-'));
  const keep = process.env['PORTOLAN_BENCH_KEEP'] !== undefined;
  const cleanups: (() => Promise<unknown>)[] = [
    async () => (keep ? undefined : rmSync(dir, { recursive: true, force: true })),
  ];
  const cleanup = async (): Promise<void> => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  };
  try {
    const stack = await testStack();
    const db = await createTestDatabase(stack.postgresUrl);
    // Kept with the folder, the database lets `portolan replay --config <folder>/fleet.yaml` run again on the archive.
    if (!keep) cleanups.push(() => db.drop());
    const haproxy = await startHaproxy({ configDir: path.join(dir, 'haproxy'), appliance });
    cleanups.push(() => haproxy.stop());
    const sim = await startKubeSim({ compactIntervalMs: 0, bookmarkIntervalMs: 10_000 });
    cleanups.push(() => sim.close());
    for (const ns of namespaces()) sim.objects.create(ns);
    for (const obj of o.objects) sim.objects.create(obj);
    await sim.writeKubeconfig(path.join(dir, 'kubeconfig'));
    const echo = await startEchoBackends(
      Array.from({ length: o.echoBackends ?? 8 }, (_, n) => ({ address: `127.0.2.${n + 1}`, port: 0 })),
    );
    cleanups.push(() => echo.close());
    cleanups.push(() => deleteStreams(stack.natsUrl, stream, id));
    const [httpPort, httpsPort] = [await freePort(), await freePort()];
    writeFileSync(path.join(dir, 'fleet.key'), randomBytes(32).toString('hex'));
    const leases =
      o.leases === undefined
        ? ''
        : `, ttlMs: ${o.leases.ttlMs}, renewEveryMs: ${o.leases.renewEveryMs}, retryEveryMs: ${o.leases.retryEveryMs}`;
    const fleetConfig = path.join(dir, 'fleet.yaml');
    writeFileSync(
      fleetConfig,
      `version: 1
clusters:
  - name: bench
    kubeconfig: ./kubeconfig
appliances:
  - name: ${appliance}
    driver: haproxy
    haproxy: { configDir: ./haproxy, masterSocket: ${haproxy.masterSocket}, address: 127.0.0.1, httpPort: ${httpPort}, httpsPort: ${httpsPort} }
bus: { url: "${stack.natsUrl}", stream: ${stream}, subjectPrefix: b${id} }
store: { url: "${db.url}" }
leases: { redisUrl: "${stack.redisUrl}"${leases} }
secrets: { keyFile: ./fleet.key }
`,
    );
    const processes = new Map<string, ServiceProcess>();
    const start = (name: string): ServiceProcess => {
      const cfg = ['--config', fleetConfig, '--health-port', '0'];
      const args =
        name === 'watcher'
          ? [...cfg, '--cluster', 'bench']
          : name === 'planner'
            ? cfg
            : [...cfg, '--appliance', appliance, '--id', name.replace(/^applier-/, '')];
      const p = startService(
        name,
        entry(name.startsWith('applier') ? 'applier' : name),
        args,
        dir,
        o.nodeFlags?.[name] ?? [],
      );
      processes.set(name, p);
      return p;
    };
    cleanups.push(async () => {
      await Promise.all([...processes.values()].map((p) => p.stop('SIGTERM', 12_000)));
    });
    const pipeline: Pipeline = {
      dir,
      appliance,
      fleetConfig,
      sim,
      db,
      haproxy,
      httpPort,
      httpsPort,
      echo,
      processes,
      start,
      startAll: () => {
        for (const name of ['watcher', 'planner', 'applier-a', 'applier-b']) start(name);
      },
      logs: () =>
        [...processes.values()]
          .map((p) => `--- ${p.name} (${p.isRunning() ? 'running' : 'exited'})\n${tail(p.logFile, 8)}`)
          .join('\n'),
      stop: cleanup,
      [Symbol.asyncDispose]: cleanup,
    };
    return pipeline;
  } catch (e) {
    await cleanup();
    throw e;
  }
}

/** Removes the run's streams from the shared NATS. */
async function deleteStreams(natsUrl: string, stream: string, id: string): Promise<void> {
  const bus = await NatsEventBus.open(
    natsUrl,
    busDeclaration({ stream, replicas: 1, maxPayloadBytes: 1 << 20, subjectPrefix: `b${id}` }),
  );
  try {
    await bus.jsm.streams.delete(stream).catch(() => undefined);
    await bus.jsm.streams.delete(bus.declaration.pipeline.name).catch(() => undefined);
  } finally {
    await bus.close();
  }
}
