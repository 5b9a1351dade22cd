import { parseArgs } from 'node:util';
import { errorCode, PortolanError } from '@portolan/errors';

/** How one applier process is started (the only module reading argv and the environment). */
export interface ApplierRunConfig {
  readonly configFile: string;
  readonly appliance: string;
  readonly replicaId: string;
  readonly healthPort: number;
  readonly verbose: boolean;
  /**
   * A folder standing in for `/` when the in-cluster service-account files are read (PORTOLAN_SERVICE_ACCOUNT_ROOT:
   * tests run the applier in-cluster without a pod); '' in pods.
   */
  readonly serviceAccountRoot: string;
}

/** A usage mistake on the command line, printed with the usage text. */
export class ApplierUsageError extends PortolanError {
  readonly code = 'APPLIER_USAGE';
}

/** Usage text of main.ts. */
export const applierUsage =
  'Usage: node services/applier/src/main.ts --config <fleet.yaml> --appliance <name> --id <replica-id> [--health-port <port>] [--verbose]';

/** Parses argv (without node and script); PORTOLAN_CONFIG and HOSTNAME stand in for --config and --id. */
export function parseRunConfig(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): ApplierRunConfig {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        config: { type: 'string' },
        appliance: { type: 'string' },
        id: { type: 'string' },
        'health-port': { type: 'string' },
        verbose: { type: 'boolean' },
      },
      allowPositionals: false,
    }));
  } catch (e) {
    // parseArgs refuses unknown or malformed options with ERR_PARSE_ARGS_* errors: those are usage mistakes.
    if (errorCode(e)?.startsWith('ERR_PARSE_ARGS_') === true)
      throw new ApplierUsageError((e as Error).message, { cause: e });
    throw e;
  }
  const configFile = (values.config as string | undefined) ?? env.PORTOLAN_CONFIG;
  const appliance = values.appliance as string | undefined;
  const replicaId = (values.id as string | undefined) ?? env.HOSTNAME;
  if (configFile === undefined) throw new ApplierUsageError('--config is required');
  if (appliance === undefined) throw new ApplierUsageError('--appliance is required');
  if (replicaId === undefined || replicaId === '') throw new ApplierUsageError('--id is required');
  const healthPort = Number(values['health-port'] ?? 0);
  if (!Number.isInteger(healthPort) || healthPort < 0 || healthPort > 65535)
    throw new ApplierUsageError('--health-port must be a port number');
  const serviceAccountRoot = env.PORTOLAN_SERVICE_ACCOUNT_ROOT ?? '';
  return { configFile, appliance, replicaId, healthPort, verbose: values.verbose === true, serviceAccountRoot };
}
