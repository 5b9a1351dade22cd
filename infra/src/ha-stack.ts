import { mkdirSync } from 'node:fs';
import { StackServiceError } from './errors.ts';
import {
  haStackConfig,
  haStackEndpoints,
  nodeHost,
  type HaStackConfig,
  type HaStackEndpoints,
} from './ha-stack-config.ts';
import { isAlive, signalUnlessGone, waitFor } from './process-control.ts';
import type { ServiceStatus, StackService } from './services/daemon-service.ts';
import { natsClusterServices } from './services/nats-cluster.ts';
import { postgresPair, type PostgresPair } from './services/postgres-pair.ts';
import { redisSentinelServices, sentinelMasterPort } from './services/redis-sentinel.ts';
import type { SitePlacement } from './site-network.ts';
import { ensureBinaries, stackBinaries } from './system-packages.ts';

/**
 * The HA stack: a 3-node NATS cluster with JetStream, a Postgres primary with a synchronous streaming standby, and
 * Redis with a replica watched by 3 Sentinels, on private ports under their own state folder. Beside `up`, `down`
 * and `status`, it offers the faults and repairs the HA tests inject.
 */
export interface HaStack {
  readonly config: HaStackConfig;
  readonly endpoints: HaStackEndpoints;
  /** Installs what is missing, then starts every node that is not running (a node that lost its role rejoins). */
  up(): Promise<void>;
  /** Stops every node (data is kept). */
  down(): Promise<void>;
  status(): Promise<readonly ServiceStatus[]>;
  /** A node by name: `nats-1`..`nats-3`, `postgres-1`, `postgres-2`, `redis-1`, `redis-2`, `sentinel-1`..`sentinel-3`. */
  service(name: string): StackService;
  /** SIGKILLs a node and every process of its group (a Postgres server's backends die with it), as a crash would. */
  kill(name: string): Promise<void>;
  /** Sends `signal` (SIGSTOP, SIGCONT...) to every process of a node's group; nothing when it is not running. */
  signal(name: string, signal: NodeJS.Signals): Promise<void>;
  /** The Postgres node currently recorded as primary (`postgres-1` or `postgres-2`). */
  postgresPrimary(): string;
  /** Promotes the Postgres standby; returns the new primary's name. */
  promotePostgres(): Promise<string>;
  /**
   * Whether the Postgres primary waits for its standby's flush before a commit returns. Off when the standby is lost
   * (a site cut off), as a failover manager would; on again waits until the standby has caught up.
   */
  postgresSynchronous(on: boolean): Promise<void>;
  /** The Redis node the Sentinels currently name as master, or null when no Sentinel answers. */
  redisMaster(): Promise<string | null>;
}

/**
 * Builds the HA stack for a config (defaults: `.portolan/ha-stack` under the working directory, ports from 35000).
 * `sites` (or `config.sites`) places the nodes in the sites of a site network; by default all are on 127.0.0.1.
 */
export function haStack(
  options: { config?: Partial<HaStackConfig>; sites?: SitePlacement; log?: (line: string) => void } = {},
): HaStack {
  const config = haStackConfig({ ...options.config, ...(options.sites === undefined ? {} : { sites: options.sites }) });
  const log = options.log ?? (() => {});
  let built: { services: StackService[]; pair: PostgresPair } | null = null;
  const build = (install: boolean) => {
    if (built !== null) return built;
    const bins = install
      ? ensureBinaries([stackBinaries.postgres, stackBinaries.nats, stackBinaries.redis], config.install, log)
      : null;
    // Stopping and status need no binaries: signalling a pid does not.
    const path = (n: string): string => bins?.get(n) ?? n;
    const pair = postgresPair(config, path('postgres'));
    const services = [
      ...natsClusterServices(config, path('nats-server')),
      ...pair.nodes,
      ...redisSentinelServices(config, path('redis-server')),
    ];
    if (bins !== null) built = { services, pair };
    return { services, pair };
  };
  const service = (name: string): StackService => {
    const found = build(false).services.find((s) => s.name === name);
    if (found === undefined) throw new StackServiceError('STACK_NOT_RUNNING', name, 'no such node in the HA stack');
    return found;
  };
  return {
    config,
    endpoints: haStackEndpoints(config),
    up: () => upInOrder(config, build(true), log),
    async down() {
      for (const s of [...build(false).services].reverse()) await s.stop();
    },
    status: () => Promise.all(build(false).services.map((s) => s.status())),
    service,
    async kill(name) {
      const { pid } = await service(name).status();
      if (pid === null) return;
      signalUnlessGone(-pid, 'SIGKILL');
      await waitFor(() => !isAlive(pid), 5000, 20);
    },
    async signal(name, signal) {
      const { pid } = await service(name).status();
      if (pid !== null) signalUnlessGone(-pid, signal);
    },
    postgresPrimary: () => `postgres-${build(false).pair.primary() + 1}`,
    promotePostgres: async () => `postgres-${(await build(false).pair.promote()) + 1}`,
    postgresSynchronous: (on) => build(false).pair.synchronous(on),
    async redisMaster() {
      const port = await sentinelMasterPort(config);
      return port === null ? null : `redis-${config.redis.indexOf(port) + 1}`;
    },
  };
}

/** The NATS nodes together (one alone never elects a meta leader), then the Postgres primary before its standby. */
async function upInOrder(
  config: HaStackConfig,
  { services, pair }: { services: StackService[]; pair: PostgresPair },
  log: (line: string) => void,
): Promise<void> {
  mkdirSync(config.stateDir, { recursive: true });
  const start = async (s: StackService): Promise<void> => {
    log(`starting ${s.name} on ${nodeHost(config, s.name)}:${s.port}`);
    await s.start();
  };
  await Promise.all(services.filter((s) => s.name.startsWith('nats-')).map(start));
  const primary = pair.primary();
  await start(pair.nodes[primary]);
  await start(pair.nodes[primary === 0 ? 1 : 0]);
  for (const s of services.filter((x) => x.name.startsWith('redis-'))) await start(s);
  await Promise.all(services.filter((s) => s.name.startsWith('sentinel-')).map(start));
}
