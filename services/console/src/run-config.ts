import { parseArgs } from 'node:util';
import { PortolanError } from '@portolan/errors';

/** How the console is started (the only module reading argv and the environment). */
export interface ConsoleRunConfig {
  readonly configFile: string;
  /** host:port overriding the fleet config's console.listen. */
  readonly listen: string | undefined;
  /** Port of /healthz, /readyz and /metrics (0: any free port). */
  readonly healthPort: number;
  readonly verbose: boolean;
}

/** A usage mistake on the command line, printed with the usage text (exit 2). */
export class ConsoleUsageError extends PortolanError {
  readonly code = 'CONSOLE_USAGE';
}

/** Usage text of main.ts. */
export const consoleUsage =
  'Usage: node services/console/src/main.ts --config <fleet.yaml> [--listen <host:port>] [--health-port <port>] [--verbose]';

/** Parses argv (without node and script); PORTOLAN_CONFIG stands in for --config. */
export function parseRunConfig(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): ConsoleRunConfig {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        config: { type: 'string' },
        listen: { type: 'string' },
        'health-port': { type: 'string' },
        verbose: { type: 'boolean' },
      },
      allowPositionals: false,
    }));
  } catch (cause) {
    // parseArgs reports unknown or malformed flags as TypeErrors with ERR_PARSE_ARGS_* codes.
    if (!(cause instanceof TypeError)) throw cause;
    throw new ConsoleUsageError(cause.message, { cause });
  }
  const configFile = (values.config as string | undefined) ?? env.PORTOLAN_CONFIG;
  if (configFile === undefined) throw new ConsoleUsageError('--config is required');
  const listen = values.listen as string | undefined;
  if (listen !== undefined && !/^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}$/.test(listen))
    throw new ConsoleUsageError(`--listen "${listen}" is not host:port`);
  const healthPort = Number(values['health-port'] ?? 0);
  if (!Number.isInteger(healthPort) || healthPort < 0 || healthPort > 65535)
    throw new ConsoleUsageError('--health-port must be a port number');
  return { configFile, listen, healthPort, verbose: values.verbose === true };
}
