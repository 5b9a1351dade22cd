import { parseArgs } from 'node:util';
import type { CliCommand } from '../command.ts';
import { UsageError, usageErrorFrom } from '../command.ts';

const usage = `Usage: portolan console [--config <fleet.yaml>] [--listen <host:port>] [--health-port <port>] [--verbose]

Runs the audit console: the API under /api/v1 (OpenAPI at /api/v1/openapi.json) and the web UI at /, on the
fleet config's console.listen (default 127.0.0.1:8480) or --listen. Every call needs a bearer token: one of
console.tokens (make one with \`portolan console token\`), or one the cluster named by console.tokenReview
authenticates. Serves /healthz, /readyz and /metrics on <health-port> (default: any free port) until SIGINT or
SIGTERM. --config defaults to $PORTOLAN_CONFIG, then .portolan/fleet.yaml.`;

/** `portolan console`: the audit console service (services/console). */
export const consoleCommand: CliCommand = {
  path: ['console'],
  summary: 'serve the audit console: the authenticated API and the web UI over history, diff and rollback',
  usage,
  async run(args) {
    const { parseRunConfig, runConsole, signalled, ConsoleUsageError } = await import('@portolan/console');
    let run;
    try {
      run = parseRunConfig(args, {
        ...process.env,
        PORTOLAN_CONFIG: process.env.PORTOLAN_CONFIG ?? '.portolan/fleet.yaml',
      });
    } catch (e) {
      if (e instanceof ConsoleUsageError) throw new UsageError(e.message, { cause: e });
      throw e;
    }
    await runConsole(run, signalled(), (url) => process.stdout.write(`console serving on ${url}\n`));
    return 0;
  },
};

const tokenUsage = `Usage: portolan console token --name <name> --role viewer|operator

Makes a new console token and prints it once, with the fleet config entry that grants it (its SHA-256; the
token itself is kept nowhere). Add the entry under console.tokens and restart the console.`;

/** `portolan console token`: a new token and its fleet config entry. */
export const consoleToken: CliCommand = {
  path: ['console', 'token'],
  summary: 'make a console token (viewer or operator) and print the fleet config entry that grants it',
  usage: tokenUsage,
  async run(args) {
    let values: { name?: string | undefined; role?: string | undefined };
    try {
      ({ values } = parseArgs({
        args: [...args],
        options: { name: { type: 'string' }, role: { type: 'string' } },
        allowPositionals: false,
      }));
    } catch (e) {
      usageErrorFrom(e);
    }
    if (values.name === undefined || !/^[A-Za-z0-9][A-Za-z0-9._@-]{0,99}$/.test(values.name))
      throw new UsageError('--name is required: letters, digits, ".", "_", "@", "-"');
    if (values.role !== 'viewer' && values.role !== 'operator') throw new UsageError('--role is viewer or operator');
    const { newToken, hashToken } = await import('@portolan/access');
    const token = newToken();
    process.stdout.write(
      `token (shown once): ${token}\n\nfleet config entry, under console.tokens:\n  - name: ${values.name}\n    role: ${values.role}\n    sha256: ${hashToken(token)}\n`,
    );
    return 0;
  },
};
