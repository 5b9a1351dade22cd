import type { CliCommand } from '../command.ts';
import { UsageError } from '../command.ts';

const usage = `Usage: portolan stack up|down|status [--ha]

Runs the local stack — private Postgres, NATS (JetStream), Redis and HAProxy — under .portolan/stack in the
working directory (PORTOLAN_STATE_DIR overrides). Missing system packages are installed with apt-get.
Ports: PORTOLAN_POSTGRES_PORT (15432), PORTOLAN_NATS_PORT (14222), PORTOLAN_REDIS_PORT (16379),
PORTOLAN_HAPROXY_HTTP_PORT (8080).

--ha runs the HA stack instead, under .portolan/ha-stack (PORTOLAN_HA_STATE_DIR): a 3-node NATS cluster, a
Postgres primary with a synchronous streaming standby, Redis with a replica and 3 Sentinels, on ports from
PORTOLAN_HA_BASE_PORT (35000) onwards.`;

/** True for `--ha`; anything else is a usage error. */
function haFlag(args: readonly string[]): boolean {
  const rest = args.filter((a) => a !== '--ha');
  if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
  return rest.length < args.length;
}

/** Prints the status table; returns true when every service is healthy. */
async function printStatus(ha: boolean): Promise<boolean> {
  const { localStack, haStack } = await import('@portolan/infra');
  const rows = await (ha ? haStack() : localStack()).status();
  process.stdout.write(`${'SERVICE'.padEnd(10)} ${'STATE'.padEnd(8)} ${'PID'.padEnd(8)} PORT\n`);
  for (const r of rows) {
    const state = r.healthy ? 'healthy' : r.running ? 'unhealthy' : 'stopped';
    process.stdout.write(`${r.name.padEnd(10)} ${state.padEnd(8)} ${String(r.pid ?? '-').padEnd(8)} ${r.port}\n`);
  }
  return rows.every((r) => r.healthy);
}

/** `portolan stack up`: installs what is missing and starts the local stack. */
export const stackUp: CliCommand = {
  path: ['stack', 'up'],
  summary: 'start the local stack (Postgres, NATS JetStream, Redis, HAProxy)',
  usage,
  async run(args) {
    const ha = haFlag(args);
    const { localStack, haStack, StackServiceError } = await import('@portolan/infra');
    const log = (l: string): void => void process.stdout.write(`${l}\n`);
    const stack = ha ? haStack({ log }) : localStack({ log });
    try {
      await stack.up();
    } catch (e) {
      if (e instanceof StackServiceError) {
        process.stderr.write(`portolan stack up: ${e.message}\n`);
        return 1;
      }
      throw e;
    }
    const { postgresUrl, natsUrl, redisUrl } = stack.endpoints;
    process.stdout.write(
      `stack is up (state in ${stack.config.stateDir})\n  postgres ${postgresUrl}\n  nats     ${natsUrl}\n  redis    ${redisUrl}\n`,
    );
    return 0;
  },
};

/** `portolan stack down`: stops the local stack, keeping its data. */
export const stackDown: CliCommand = {
  path: ['stack', 'down'],
  summary: 'stop the local stack (data is kept)',
  usage,
  async run(args) {
    const ha = haFlag(args);
    const { localStack, haStack } = await import('@portolan/infra');
    await (ha ? haStack() : localStack()).down();
    process.stdout.write('stack stopped\n');
    return 0;
  },
};

/** `portolan stack status`: one line per service; exit 1 unless all are healthy. */
export const stackStatus: CliCommand = {
  path: ['stack', 'status'],
  summary: 'show whether each local stack service is healthy',
  usage,
  async run(args) {
    return (await printStatus(haFlag(args))) ? 0 : 1;
  },
};
