import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Operation } from '@portolan/appliance-driver';
import { DriverRegistry, PgSnapshotSource } from '@portolan/applier';
import { loadFleetConfig } from '@portolan/fleet-config';
import { HaproxyMasterClient } from '@portolan/haproxy-driver';
import {
  demoCredentials,
  freePort,
  kubectlBinary,
  launchPipeline,
  testStack,
  type DemoAppliance,
  type LaunchedPipeline,
} from '@portolan/infra';
import { PgEpochStore, RedisLeaseClient, groupStatuses } from '@portolan/leadership';
import { createTestDatabase, type Database, type Kysely, type TestDatabase } from '@portolan/store';
import { LoadMasterClient, VtmClient } from './appliance-clients.ts';
import { sendRequest, type Reply, type RequestOptions } from './http-client.ts';
import { eventually } from './eventually.ts';
import { cleanUp, exitGuard, pipelineProcess } from './pipeline-processes.ts';

/** What an end-to-end test asks of its pipeline. */
export interface PipelineOptions {
  /** Appliances by logical name; the fleet config gets unique names (leases live in the shared Redis, keyed by name). */
  readonly appliances: readonly DemoAppliance[];
  /** Loopback addresses of the echo backends (all on one free port: `pipeline.echoPort`); default none. */
  readonly echoAddresses?: readonly string[];
  /** YAML applied before the watcher starts. */
  readonly manifests?: string;
  readonly leases?: { readonly ttlMs?: number; readonly renewEveryMs?: number; readonly retryEveryMs?: number };
  /**
   * A Postgres (admin URL: the pipeline gets a fresh database in it) and a NATS the test owns, e.g. to stop them
   * (default: the shared test stack's, which a test must never stop).
   */
  readonly postgresUrl?: string;
  readonly natsUrl?: string;
  /** The code every process runs (default: this checkout), e.g. a production-only install of it. */
  readonly codeRoot?: string;
  /** Variables added to the environment of the watcher, planner and appliers (e.g. `OTEL_*` to export traces). */
  readonly env?: Readonly<Record<string, string>>;
  /** Runs the audit console too (`pipeline.console`). */
  readonly console?: boolean;
}

/** One pipeline process: its pid and the signals a test sends it. */
export interface PipelineProcess {
  readonly name: string;
  /** The live pid, or null when it is not running. */
  pid(): number | null;
  /** Sends a signal (SIGKILL, SIGSTOP, SIGCONT, ...) to the running process, synchronously. */
  signal(signal: NodeJS.Signals): void;
  /** Resolves once the process is gone (after a SIGKILL); rejects after 5 s. */
  exited(): Promise<void>;
  /** Graceful stop (SIGTERM, SIGKILL after 10 s). */
  stop(): Promise<void>;
  /** Starts it again (after a stop or a kill) and waits until it answers its health check. */
  start(): Promise<void>;
  /** Its log so far. */
  log(): string;
}

/** A whole pipeline of real processes on private ports, sharing the test stack's Postgres, NATS and Redis. */
export interface Pipeline extends AsyncDisposable {
  readonly root: string;
  readonly kubeconfig: string;
  /** The fleet config file every process reads (for the `portolan` CLI's `--config`). */
  readonly fleetConfig: string;
  readonly db: Kysely<Database>;
  readonly httpPort: number;
  readonly httpsPort: number;
  readonly haproxyUrl: string;
  readonly echoPort: number;
  readonly haproxyConfigDir: string;
  readonly vtm: VtmClient;
  /** The vTM emulator's audit log: every write with the epoch and snapshot it carried, one JSON line each. */
  readonly vtmAuditLog: string;
  readonly loadmaster: LoadMasterClient;
  readonly processes: ReadonlyMap<string, PipelineProcess>;
  /** With `console: true`: its URL and the demo's operator and viewer tokens. */
  readonly console: { readonly url: string; readonly operatorToken: string; readonly viewerToken: string } | null;
  /** The fleet config name of a logical appliance name. */
  appliance(logical: string): string;
  process(name: string): PipelineProcess;
  /** Runs kubectl against the simulator; rejects with stderr on failure. */
  kubectl(args: readonly string[], input?: string): Promise<string>;
  /** `kubectl apply -f -` of YAML text. */
  apply(yaml: string): Promise<string>;
  /** A request through HAProxy with a Host header (HTTP or HTTPS port). */
  request(host: string, urlPath: string, options?: RequestOptions): Promise<Reply>;
  /** Reloads the HAProxy master has performed (`show proc`). */
  haproxyReloads(): Promise<number>;
  /** The epoch HAProxy last accepted a write under (`<configDir>/epoch`), or null. */
  haproxyEpoch(): number | null;
  /** The lease holder (replica id) and the latest epoch of an appliance's leader group. */
  leader(logical: string): Promise<{ holder: string | null; epoch: number | null }>;
  /** Operations that would still be needed to make the appliance equal the head snapshot (read back, render, diff). */
  pendingOperations(logical: string): Promise<readonly Operation[]>;
  /** Waits until the head snapshot's apply is recorded and the appliance equals it (nothing pending). */
  settled(logical: string, timeoutMs?: number): Promise<void>;
  /** The last lines of every process log (for failure messages). */
  diagnostics(): string;
  stop(): Promise<void>;
}

/**
 * Starts a pipeline with the demo launcher on free ports: a fresh database, a unique bus stream and subject
 * prefix on the shared NATS, a private HAProxy in a temp dir. Every process is killed when the test process
 * exits, even on failure.
 */
export async function startPipeline(options: PipelineOptions): Promise<Pipeline> {
  const stack = await testStack();
  const suffix = randomBytes(3).toString('hex');
  const names = new Map(options.appliances.map((a) => [a.name, `${a.name}-${suffix}`]));
  const appliances = options.appliances.map((a) => ({ ...a, name: names.get(a.name)! }));
  const root = mkdtempSync(path.join(os.tmpdir(), 'ptl-e2e-'));
  const natsUrl = options.natsUrl ?? stack.natsUrl;
  const database = await createTestDatabase(options.postgresUrl ?? stack.postgresUrl);
  const stream = `E2E_${suffix}`;
  const free = async (): Promise<number> => freePort();
  const ports = {
    kubeSim: await free(),
    vtm: await free(),
    loadmaster: await free(),
    echo: await free(),
    watcherHealth: await free(),
    plannerHealth: await free(),
    leaderHealth: await free(),
    ...(options.console === true ? { console: await free(), consoleHealth: await free() } : {}),
  };
  const haproxyPorts = { http: await free(), https: await free(), stats: await free() };
  const applierHealthPorts: Record<string, number> = {};
  for (const id of appliances.flatMap((a) => a.replicas)) applierHealthPorts[id] = await free();
  const guard = exitGuard(root);
  let launched: LaunchedPipeline;
  try {
    launched = await launchPipeline({
      root,
      ports,
      haproxyPorts,
      applierHealthPorts,
      appliances,
      endpoints: { postgresUrl: database.url, natsUrl, redisUrl: stack.redisUrl },
      bus: { stream, subjectPrefix: `e2e${suffix}` },
      echoAddresses: options.echoAddresses ?? [],
      ...(options.leases ? { leases: options.leases } : {}),
      ...(options.manifests === undefined ? {} : { manifests: options.manifests }),
      ...(options.codeRoot === undefined ? {} : { codeRoot: options.codeRoot }),
      ...(options.env === undefined ? {} : { env: options.env }),
    });
  } catch (e) {
    guard.dispose();
    await cleanUp(database, natsUrl, stream, root);
    throw e;
  }
  return buildPipeline({
    launched,
    database,
    names,
    natsUrl,
    redisUrl: stack.redisUrl,
    stream,
    guard,
    root,
    echoPort: ports.echo,
  });
}

interface Parts {
  readonly launched: LaunchedPipeline;
  readonly database: TestDatabase;
  readonly names: ReadonlyMap<string, string>;
  readonly natsUrl: string;
  readonly redisUrl: string;
  readonly stream: string;
  readonly guard: { dispose(): void };
  readonly root: string;
  readonly echoPort: number;
}

function buildPipeline(p: Parts): Pipeline {
  const { launched, database } = p;
  const kubectl = kubectlBinary();
  const processes = new Map(
    [...launched.components].map(([name, svc]) => [
      name,
      pipelineProcess(svc, name === 'haproxy' ? launched.haproxy.dir : launched.layout.runDir),
    ]),
  );
  const appliance = (logical: string): string => {
    const name = p.names.get(logical);
    if (name === undefined) throw new Error(`no appliance "${logical}" in this pipeline`);
    return name;
  };
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    for (const proc of processes.values()) {
      if (proc.pid() !== null) proc.signal('SIGCONT');
    }
    await launched.stop();
    p.guard.dispose();
    await cleanUp(database, p.natsUrl, p.stream, p.root);
  };
  const run = (args: readonly string[], input?: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const child = execFile(
        kubectl,
        ['--kubeconfig', launched.layout.kubeconfig, ...args],
        { timeout: 30_000 },
        (error, stdout, stderr) => {
          if (error) reject(new Error(`kubectl ${args.join(' ')}: ${stderr || error.message}`, { cause: error }));
          else resolve(stdout);
        },
      );
      if (input !== undefined) child.stdin!.end(input);
    });
  const { vtm, loadmaster } = demoCredentials;
  return {
    root: p.root,
    kubeconfig: launched.layout.kubeconfig,
    fleetConfig: launched.layout.fleetConfig,
    db: database.db,
    httpPort: launched.haproxy.httpPort,
    httpsPort: launched.haproxy.httpsPort,
    haproxyUrl: `http://127.0.0.1:${launched.haproxy.httpPort}`,
    echoPort: p.echoPort,
    haproxyConfigDir: launched.haproxy.dir,
    vtmAuditLog: launched.layout.vtmAuditLog,
    vtm: new VtmClient(`http://127.0.0.1:${launched.layout.ports.vtm}`, vtm.user, vtm.password),
    loadmaster: new LoadMasterClient(
      `https://127.0.0.1:${launched.layout.ports.loadmaster}`,
      loadmaster.user,
      loadmaster.password,
    ),
    processes,
    console: consoleOf(launched.layout),
    appliance,
    process(name) {
      const proc = processes.get(name);
      if (proc === undefined) throw new Error(`no process "${name}" (have ${[...processes.keys()].join(', ')})`);
      return proc;
    },
    kubectl: run,
    apply: (yaml) => run(['apply', '-f', '-'], yaml),
    request: (host, urlPath, options = {}) =>
      sendRequest(
        options.https === true ? launched.haproxy.httpsPort : launched.haproxy.httpPort,
        host,
        urlPath,
        options,
      ),
    async haproxyReloads() {
      const status = await new HaproxyMasterClient(launched.haproxy.masterSocket, { timeoutMs: 2000 }).showProc();
      return status.master.reloads;
    },
    haproxyEpoch() {
      try {
        const n = Number(readFileSync(path.join(launched.haproxy.dir, 'epoch'), 'utf8').trim());
        return Number.isFinite(n) ? n : null;
      } catch {
        return null;
      }
    },
    async leader(logical) {
      const lease = new RedisLeaseClient(p.redisUrl, { commandTimeoutMs: 2000 });
      try {
        await lease.ready(3000);
        const [status] = await groupStatuses([appliance(logical)], lease, new PgEpochStore(database.db));
        // The lease (Redis) moves before the new holder's epoch grant (Postgres) lands: until the newest epoch is the
        // holder's own, there is no epoch to report for it.
        const holder = status?.holder ?? null;
        return { holder, epoch: holder !== null && status?.epochHolder === holder ? (status.epoch ?? null) : null };
      } finally {
        lease.close();
      }
    },
    pendingOperations: (logical) => pendingOperations(launched.layout.fleetConfig, appliance(logical), database.db),
    async settled(logical, timeoutMs = 30_000) {
      const name = appliance(logical);
      await eventually(
        `${name} to settle`,
        async () => {
          const head = await database.db
            .selectFrom('snapshot_heads')
            .select('snapshot_id')
            .where('appliance', '=', name)
            .executeTakeFirst();
          const applied =
            head === undefined
              ? undefined
              : await database.db
                  .selectFrom('applies')
                  .select('id')
                  .where('appliance', '=', name)
                  .where('snapshot_id', '=', head.snapshot_id)
                  .where('status', 'in', ['succeeded', 'noop'])
                  .executeTakeFirst();
          if (applied === undefined) throw new Error('the head snapshot has no recorded apply yet');
          const pending = await pendingOperations(launched.layout.fleetConfig, name, database.db);
          if (pending.length > 0) throw new Error(`${pending.length} operations pending`);
        },
        { timeoutMs },
      );
    },
    diagnostics: () =>
      [...processes.values()]
        .map((proc) => `--- ${proc.name}\n${proc.log().trimEnd().split('\n').slice(-15).join('\n')}`)
        .join('\n'),
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/** Read back the appliance, render the head snapshot, diff: what the appliers would still have to write. */
async function pendingOperations(
  fleetConfig: string,
  name: string,
  db: Kysely<Database>,
): Promise<readonly Operation[]> {
  const loaded = await loadFleetConfig(fleetConfig);
  const config = loaded.config.appliances.find((a) => a.name === name);
  if (config === undefined) throw new Error(`appliance ${name} is not in ${fleetConfig}`);
  const source = new PgSnapshotSource(db);
  const head = await source.head(name);
  if (head === null) throw new Error(`appliance ${name} has no snapshot yet`);
  const snapshot = await source.get(head.id);
  const driver = await new DriverRegistry().create(config, loaded.baseDir);
  try {
    // A reload nobody waited for (a paused or killed leader's) may still be running: the driver rides through it.
    const observed = await driver.readBack(AbortSignal.timeout(10_000));
    return driver.diff(driver.render(snapshot.desired, observed), observed);
  } finally {
    await driver.close();
  }
}

/** The console of a launched pipeline, when it runs one. */
function consoleOf(layout: LaunchedPipeline['layout']): Pipeline['console'] {
  if (layout.ports.console === undefined) return null;
  return {
    url: `http://127.0.0.1:${layout.ports.console}`,
    operatorToken: readFileSync(layout.operatorTokenFile, 'utf8').trim(),
    viewerToken: readFileSync(layout.viewerTokenFile, 'utf8').trim(),
  };
}
