import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import type { CliCommand } from '../command.ts';
import { UsageError, usageErrorFrom } from '../command.ts';

const usage = `Usage: portolan up [--kubeconfig <file>] [--http-port 8080] [--https-port 8443] [--state-dir .portolan]

Starts everything locally: the stack (Postgres, NATS JetStream, Redis, HAProxy), a Kubernetes API simulator,
the vTM and LoadMaster emulators, echo backends standing in for pods, the watcher, the planner and the appliers
(two for the HAProxy appliance "edge": leader and follower), then applies sample manifests.
Missing system packages are installed with apt-get. Stop it all with \`portolan down\`.`;

/** `portolan up`: the whole pipeline on this machine. */
export const up: CliCommand = {
  path: ['up'],
  summary: 'run the whole pipeline locally with sample manifests (stop with `portolan down`)',
  usage,
  async run(args) {
    const { values } = parse(args, {
      kubeconfig: { type: 'string' },
      'http-port': { type: 'string' },
      'https-port': { type: 'string' },
      'state-dir': { type: 'string' },
    });
    const { portolanUp, StackServiceError } = await import('@portolan/infra');
    const port = (v: unknown, name: string): number | undefined => {
      if (v === undefined) return undefined;
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1 || n > 65535) throw new UsageError(`--${name} must be a port number`);
      return n;
    };
    try {
      const r = await portolanUp({
        ...(values['state-dir'] === undefined ? {} : { root: String(values['state-dir']) }),
        ...(values.kubeconfig === undefined ? {} : { kubeconfig: String(values.kubeconfig) }),
        ...(port(values['http-port'], 'http-port') === undefined
          ? {}
          : { httpPort: port(values['http-port'], 'http-port')! }),
        ...(port(values['https-port'], 'https-port') === undefined
          ? {}
          : { httpsPort: port(values['https-port'], 'https-port')! }),
        log: (l) => process.stdout.write(`${l}\n`),
      });
      process.stdout.write(`
Portolan is up.
  kubeconfig   ${r.layout.kubeconfig}    (kubectl --kubeconfig ${r.layout.kubeconfig} get ingress -A)
  HAProxy      ${r.httpUrl}  ${r.httpsUrl}
  vTM          http://127.0.0.1:${r.layout.vtmPort}/api/tm   (emulator; admin/admin, local only)
  LoadMaster   https://127.0.0.1:${r.layout.loadmasterPort}/accessv2   (emulator; bal/portolan, local only)
  fleet config ${r.layout.fleetConfig}
  logs         ${r.layout.root}/run/*.log

Try:
  curl -H 'Host: demo.local' ${r.httpUrl}/
  curl -H 'Host: demo.local' ${r.httpUrl}/api/
${r.serving ? '' : '\nWARNING: HAProxy did not serve demo.local within 60 s; see the logs above.\n'}`);
      return r.serving ? 0 : 1;
    } catch (e) {
      if (e instanceof StackServiceError) {
        process.stderr.write(`portolan up: ${e.message}\n`);
        return 1;
      }
      throw e;
    }
  },
};

/** `portolan down`: stops everything `up` started (state is kept). */
export const down: CliCommand = {
  path: ['down'],
  summary: 'stop everything `portolan up` started (state is kept)',
  usage: 'Usage: portolan down [--state-dir .portolan]',
  async run(args) {
    const { values } = parse(args, { 'state-dir': { type: 'string' } });
    const { portolanDown } = await import('@portolan/infra');
    await portolanDown({
      ...(values['state-dir'] === undefined ? {} : { root: String(values['state-dir']) }),
      log: (l) => process.stdout.write(`${l}\n`),
    });
    process.stdout.write('stopped\n');
    return 0;
  },
};

function parse(args: readonly string[], options: ParseArgsOptionsConfig): { values: Record<string, unknown> } {
  try {
    return parseArgs({ args: [...args], options, allowPositionals: false, strict: true });
  } catch (e) {
    usageErrorFrom(e);
  }
}
