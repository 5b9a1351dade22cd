// Composition root of the audit console: `node services/console/src/main.ts --config <fleet.yaml>
// [--listen host:port] [--health-port p] [--verbose]`. Serves the API under /api/v1 and the web UI at / on the fleet
// config's console.listen, every call authenticated; /healthz, /readyz and /metrics on the health port.
import { FleetConfigError } from '@portolan/fleet-config';
import { ConsoleUsageError, consoleUsage, parseRunConfig } from './run-config.ts';
import { runConsole, signalled } from './run-console.ts';

Promise.resolve()
  .then(() => runConsole(parseRunConfig(process.argv.slice(2)), signalled()))
  .catch((e: unknown) => {
    if (e instanceof ConsoleUsageError || e instanceof FleetConfigError) {
      process.stderr.write(`console: ${e.message}\n${e instanceof ConsoleUsageError ? `${consoleUsage}\n` : ''}`);
      process.exit(2);
    }
    process.stderr.write(`console: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  });
