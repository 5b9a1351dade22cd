import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { nodeCommand, nodeHost, type HaStackConfig } from '../ha-stack-config.ts';
import { daemonService, type StackService } from './daemon-service.ts';
import { redisPing } from './redis.ts';

/** How long a Sentinel waits before it calls a silent master down (small: this stack is on one machine). */
const downAfterMs = 1000;

/**
 * Redis `redis-1` and `redis-2`, one replicating the other, and three Sentinels (`sentinel-1`..`sentinel-3`) that
 * watch them with a quorum of two. The master is whichever node the Sentinels last recorded (they rewrite their
 * config file after a failover), so a stack restarted after a failover starts the new master as master.
 */
export function redisSentinelServices(config: HaStackConfig, binary: string): StackService[] {
  const masterPort = recordedMasterPort(config) ?? config.redis[0];
  const master = { host: nodeHost(config, `redis-${config.redis.indexOf(masterPort) + 1}`), port: masterPort };
  const nodes = config.redis.map((port, i) => {
    const name = `redis-${i + 1}`;
    const dir = path.join(config.stateDir, name);
    const host = nodeHost(config, name);
    const replicaOf = port === master.port ? [] : ['--replicaof', master.host, String(master.port)];
    // Placed in sites, clients come from other addresses than loopback, which protected mode refuses.
    const open = config.sites === undefined ? [] : ['--protected-mode', 'no'];
    return daemonService({
      name,
      port,
      host,
      dir,
      ...nodeCommand(config, name, binary, [
        ...['--bind', host, '--port', String(port), '--dir', dir],
        // An append-only file, as on the single-node stack: a restarted node keeps its leases.
        ...['--save', '', '--appendonly', 'yes', '--daemonize', 'no', ...open, ...replicaOf],
      ]),
      healthy: () => redisPing(port, host),
    });
  });
  const sentinels = config.sentinels.map((port, i) => {
    const name = `sentinel-${i + 1}`;
    const dir = path.join(config.stateDir, name);
    const file = path.join(dir, 'sentinel.conf');
    const host = nodeHost(config, name);
    return daemonService({
      name,
      port,
      host,
      dir,
      ...nodeCommand(config, name, binary, [file, '--sentinel']),
      // Written once: from then on the Sentinel owns the file and records failovers in it.
      prepare: () => {
        if (!existsSync(file)) writeFileSync(file, sentinelConf(config, { host, port }, dir, master));
      },
      healthy: () => redisPing(port, host),
    });
  });
  return [...nodes, ...sentinels];
}

function sentinelConf(
  config: HaStackConfig,
  own: { host: string; port: number },
  dir: string,
  master: { host: string; port: number },
): string {
  const n = config.sentinelName;
  return [
    `port ${own.port}`,
    `bind ${own.host}`,
    ...(config.sites === undefined ? [] : ['protected-mode no']),
    'daemonize no',
    `dir ${dir}`,
    `sentinel monitor ${n} ${master.host} ${master.port} 2`,
    `sentinel down-after-milliseconds ${n} ${downAfterMs}`,
    `sentinel failover-timeout ${n} 10000`,
    `sentinel parallel-syncs ${n} 1`,
    '',
  ].join('\n');
}

/** The master port the first Sentinel's config file records, or null before the Sentinels first ran. */
function recordedMasterPort(config: HaStackConfig): number | null {
  const file = path.join(config.stateDir, 'sentinel-1', 'sentinel.conf');
  if (!existsSync(file)) return null;
  const found = new RegExp(`^sentinel monitor ${config.sentinelName} \\S+ (\\d+)`, 'm').exec(
    readFileSync(file, 'utf8'),
  );
  return found === null ? null : Number(found[1]);
}

/** The master's port as the Sentinels report it now (the first Sentinel that answers), or null if none answers. */
export async function sentinelMasterPort(config: HaStackConfig): Promise<number | null> {
  for (const [i, port] of config.sentinels.entries()) {
    const client = new Redis({
      port,
      host: nodeHost(config, `sentinel-${i + 1}`),
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      connectTimeout: 1000,
    });
    // A Sentinel that is down answers nothing: ask the next one.
    client.on('error', () => {});
    try {
      await client.connect();
      const reply = (await client.call('SENTINEL', 'get-master-addr-by-name', config.sentinelName)) as string[] | null;
      if (reply !== null) return Number(reply[1]);
    } catch {
      // Refused or timed out: this Sentinel is down; the loop asks the next one.
    } finally {
      client.disconnect();
    }
  }
  return null;
}
