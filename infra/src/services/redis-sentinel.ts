import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import type { HaStackConfig } from '../ha-stack-config.ts';
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
  const master = recordedMasterPort(config) ?? config.redis[0];
  const nodes = config.redis.map((port, i) => {
    const name = `redis-${i + 1}`;
    const dir = path.join(config.stateDir, name);
    const replicaOf = port === master ? [] : ['--replicaof', '127.0.0.1', String(master)];
    return daemonService({
      name,
      port,
      dir,
      command: binary,
      args: [
        ...['--bind', '127.0.0.1', '--port', String(port), '--dir', dir],
        // An append-only file, as on the single-node stack: a restarted node keeps its leases.
        ...['--save', '', '--appendonly', 'yes', '--daemonize', 'no', ...replicaOf],
      ],
      healthy: () => redisPing(port),
    });
  });
  const sentinels = config.sentinels.map((port, i) => {
    const name = `sentinel-${i + 1}`;
    const dir = path.join(config.stateDir, name);
    const file = path.join(dir, 'sentinel.conf');
    return daemonService({
      name,
      port,
      dir,
      command: binary,
      args: [file, '--sentinel'],
      // Written once: from then on the Sentinel owns the file and records failovers in it.
      prepare: () => {
        if (!existsSync(file)) writeFileSync(file, sentinelConf(config, port, dir, master));
      },
      healthy: () => redisPing(port),
    });
  });
  return [...nodes, ...sentinels];
}

function sentinelConf(config: HaStackConfig, port: number, dir: string, masterPort: number): string {
  const n = config.sentinelName;
  return [
    `port ${port}`,
    'bind 127.0.0.1',
    'daemonize no',
    `dir ${dir}`,
    `sentinel monitor ${n} 127.0.0.1 ${masterPort} 2`,
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
  for (const port of config.sentinels) {
    const client = new Redis({
      port,
      host: '127.0.0.1',
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
