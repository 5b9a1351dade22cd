import { parseArgs } from 'node:util';
import { PortolanError } from '@portolan/errors';

/** How the leader monitor is started (the only module reading argv and the environment). */
export interface LeaderRunConfig {
  readonly configFile: string;
  readonly healthPort: number;
  /** How often every group's lease and epoch are read. */
  readonly intervalMs: number;
  readonly verbose: boolean;
}

/** A usage mistake on the command line, printed with the usage text (exit 2). */
export class LeaderUsageError extends PortolanError {
  readonly code = 'LEADER_USAGE';
}

/** Usage text of main.ts. */
export const leaderUsage =
  'Usage: node services/leader/src/main.ts --config <fleet.yaml> [--health-port <port>] [--interval <seconds>] [--verbose]';

/** Parses argv (without node and script); PORTOLAN_CONFIG stands in for --config. */
export function parseRunConfig(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): LeaderRunConfig {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        config: { type: 'string' },
        'health-port': { type: 'string' },
        interval: { type: 'string' },
        verbose: { type: 'boolean' },
      },
      allowPositionals: false,
    }));
  } catch (cause) {
    // parseArgs reports unknown or malformed flags as TypeErrors with ERR_PARSE_ARGS_* codes.
    if (!(cause instanceof TypeError)) throw cause;
    throw new LeaderUsageError(cause.message, { cause });
  }
  const configFile = (values.config as string | undefined) ?? env.PORTOLAN_CONFIG;
  if (configFile === undefined) throw new LeaderUsageError('--config is required');
  const healthPort = Number(values['health-port'] ?? 0);
  if (!Number.isInteger(healthPort) || healthPort < 0 || healthPort > 65535)
    throw new LeaderUsageError('--health-port must be a port number');
  const seconds = Number(values.interval ?? 2);
  if (!(seconds > 0 && seconds <= 3600)) throw new LeaderUsageError('--interval must be a number of seconds');
  return { configFile, healthPort, intervalMs: Math.round(seconds * 1000), verbose: values.verbose === true };
}
