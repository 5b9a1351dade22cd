import path from 'node:path';
import { StackSettingError } from './errors.ts';
import { freePort } from './process-control.ts';
import type { SiteName, SitePlacement } from './site-network.ts';
import type { StackEndpoints } from './stack-config.ts';

/** The three ports of one NATS cluster node. */
export interface NatsNodePorts {
  readonly client: number;
  /** Route port: where the other nodes of the cluster connect. */
  readonly cluster: number;
  readonly monitor: number;
}

/** Where the HA stack keeps its state, and its private ports (one array entry per node). */
export interface HaStackConfig {
  /** One folder holding every node's data, logs and pid files, apart from the single-node stack's. */
  readonly stateDir: string;
  readonly nats: readonly [NatsNodePorts, NatsNodePorts, NatsNodePorts];
  /** Postgres node 1 (the first primary) and node 2 (its streaming standby). */
  readonly postgres: readonly [number, number];
  /** Redis node 1 (the first master) and node 2 (its replica). */
  readonly redis: readonly [number, number];
  readonly sentinels: readonly [number, number, number];
  /** The name the Sentinels monitor the Redis master under. */
  readonly sentinelName: string;
  /** Install missing system packages with apt-get (off when PORTOLAN_NO_INSTALL=1). */
  readonly install: boolean;
  /**
   * Places the nodes in the sites of a site network (see `nodeSites`): each runs in its site's namespace, binds its
   * site's address, and clients name that address. Absent (the default): every node on 127.0.0.1 in this namespace.
   */
  readonly sites?: SitePlacement;
}

/** The site of each node when the stack is placed: one node of each engine per site, the witness c breaking ties. */
export const nodeSites: Readonly<Record<string, SiteName>> = {
  'nats-1': 'a',
  'postgres-1': 'a',
  'redis-1': 'a',
  'sentinel-1': 'a',
  'nats-2': 'b',
  'postgres-2': 'b',
  'redis-2': 'b',
  'sentinel-2': 'b',
  'nats-3': 'c',
  'sentinel-3': 'c',
};

/** The address node `name` (`nats-2`, `postgres-1`...) binds and clients name: its site's, or 127.0.0.1. */
export function nodeHost(config: Pick<HaStackConfig, 'sites'>, name: string): string {
  const site = nodeSites[name];
  return config.sites === undefined || site === undefined ? '127.0.0.1' : config.sites.sites[site].address;
}

/** The command that runs `binary` for node `name`: inside its site's namespace when placed, else as it is. */
export function nodeCommand(
  config: Pick<HaStackConfig, 'sites'>,
  name: string,
  binary: string,
  args: readonly string[],
): { readonly command: string; readonly args: string[] } {
  const site = nodeSites[name];
  if (config.sites === undefined || site === undefined) return { command: binary, args: [...args] };
  const [command, ...prefix] = config.sites.sites[site].exec;
  return { command: command!, args: [...prefix, binary, ...args] };
}

/** The default ports: `base` onwards (PORTOLAN_HA_BASE_PORT, 35000), in the order of the config's fields. */
function portsFrom(base: number): Omit<HaStackConfig, 'stateDir' | 'sentinelName' | 'install'> {
  const nats = (i: number): NatsNodePorts => ({
    client: base + i * 3,
    cluster: base + i * 3 + 1,
    monitor: base + i * 3 + 2,
  });
  return {
    nats: [nats(0), nats(1), nats(2)],
    postgres: [base + 10, base + 11],
    redis: [base + 12, base + 13],
    sentinels: [base + 14, base + 15, base + 16],
  };
}

/** Builds the HA stack config from defaults, `PORTOLAN_HA_*` environment variables and explicit overrides. */
export function haStackConfig(
  overrides: Partial<HaStackConfig> = {},
  env: NodeJS.ProcessEnv = process.env,
): HaStackConfig {
  const raw = env.PORTOLAN_HA_BASE_PORT;
  const base = raw === undefined || raw === '' ? 35_000 : Number(raw);
  if (!Number.isInteger(base) || base < 1024 || base > 65_500)
    throw new StackSettingError(`PORTOLAN_HA_BASE_PORT=${raw} is not a port number between 1024 and 65500`);
  return {
    stateDir: path.resolve(env.PORTOLAN_HA_STATE_DIR ?? path.join(process.cwd(), '.portolan', 'ha-stack')),
    ...portsFrom(base),
    sentinelName: 'portolan',
    install: env.PORTOLAN_NO_INSTALL !== '1',
    ...overrides,
  };
}

/** Fresh free ports for every node of an HA stack (tests run one beside the shared test stack). */
export async function freeHaPorts(): Promise<Pick<HaStackConfig, 'nats' | 'postgres' | 'redis' | 'sentinels'>> {
  const ports: number[] = [];
  for (let i = 0; i < 17; i++) ports.push(await freePort());
  const at = (i: number): number => ports[i]!;
  const nats = (i: number): NatsNodePorts => ({ client: at(i * 3), cluster: at(i * 3 + 1), monitor: at(i * 3 + 2) });
  return {
    nats: [nats(0), nats(1), nats(2)],
    postgres: [at(10), at(11)],
    redis: [at(12), at(13)],
    sentinels: [at(14), at(15), at(16)],
  };
}

/** Connection strings of a running HA stack: each names every node, so a client follows a failover. */
export interface HaStackEndpoints extends StackEndpoints {
  /** Every NATS node's client URL (`natsUrl` is the same list, comma-separated). */
  readonly natsUrls: readonly string[];
  /** The Sentinels' addresses (`redisUrl` names them as `redis-sentinel://h:p,h:p/<name>`). */
  readonly sentinels: readonly { readonly host: string; readonly port: number }[];
  readonly sentinelName: string;
  /** One single-host URL per Postgres node, in node order (tests and the stack's own checks). */
  readonly postgresNodeUrls: readonly [string, string];
}

/** The URLs clients use to reach the HA stack described by `config`. */
export function haStackEndpoints(config: HaStackConfig): HaStackEndpoints {
  const host = (name: string): string => nodeHost(config, name);
  const natsUrls = config.nats.map((n, i) => `nats://${host(`nats-${i + 1}`)}:${n.client}`);
  const sentinels = config.sentinels.map((port, i) => ({ host: host(`sentinel-${i + 1}`), port }));
  const hosts = config.postgres.map((p, i) => `${host(`postgres-${i + 1}`)}:${p}`).join(',');
  const node = (i: number): string => `postgres://portolan@${host(`postgres-${i + 1}`)}:${config.postgres[i]}/portolan`;
  return {
    // libpq's multi-host form: the store connects to whichever host accepts writes.
    postgresUrl: `postgres://portolan@${hosts}/portolan?target_session_attrs=read-write`,
    natsUrl: natsUrls.join(','),
    redisUrl: `redis-sentinel://${sentinels.map((s) => `${s.host}:${s.port}`).join(',')}/${config.sentinelName}`,
    natsUrls,
    sentinels,
    sentinelName: config.sentinelName,
    postgresNodeUrls: [node(0), node(1)],
  };
}
