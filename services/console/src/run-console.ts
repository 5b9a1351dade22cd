import { loadFleetConfig } from '@portolan/fleet-config';
import { createLogger, createMetricsRegistry, startHealthServer } from '@portolan/telemetry';
import type { ConsoleRunConfig } from './run-config.ts';
import { startConsole } from './start-console.ts';

/**
 * Runs the console until `stopped` settles: the API and UI on console.listen (or --listen), /healthz, /readyz and
 * /metrics on the health port. `announce` is told the URL once it serves.
 */
export async function runConsole(
  run: ConsoleRunConfig,
  stopped: Promise<void>,
  announce: (url: string) => void = () => {},
): Promise<void> {
  const log = createLogger('console', { verbose: run.verbose });
  const fleet = await loadFleetConfig(run.configFile);
  if ((fleet.config.console?.tokens.length ?? 0) === 0 && fleet.config.console?.tokenReview === undefined)
    log.warn('the fleet config grants no token (console.tokens, console.tokenReview): nobody can sign in');
  const running = await startConsole({ fleet, log, ...(run.listen === undefined ? {} : { listen: run.listen }) });
  const health = await startHealthServer({ port: run.healthPort, registry: createMetricsRegistry('console') });
  log.info({ url: running.url, healthPort: health.port }, 'console serving');
  announce(running.url);
  await stopped;
  log.info('console stopping');
  await Promise.allSettled([running.close(), health.close()]);
}

/** Settles on the first SIGINT or SIGTERM. */
export function signalled(): Promise<void> {
  return new Promise((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
  });
}
