import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import type { UpOptions, UpResult } from '@portolan/infra';
import { DEMO_GATEWAY_ADDRESS } from '@portolan/infra';
import type { CliCommand } from '../command.ts';
import { UsageError, usageErrorFrom } from '../command.ts';

const usage = `Usage: portolan up [--ha] [--kubeconfig <file>] [--http-port 8080] [--https-port 8443]
                   [--state-dir .portolan] [--base-port <p>]

Starts everything locally: the stack (Postgres, NATS JetStream, Redis, HAProxy), a Kubernetes API simulator,
the vTM and LoadMaster emulators, echo backends standing in for pods, the watcher, the planner and the appliers
(two for the HAProxy appliance "edge": leader and follower), then applies sample manifests.
Missing system packages are installed with apt-get. Stop it all with \`portolan down\`.

--ha runs the HA engines instead (a 3-node NATS cluster, a Postgres primary with a synchronous standby, Redis
with a replica and 3 Sentinels; under <state-dir>/ha-stack, ports from PORTOLAN_HA_BASE_PORT, 35000) and the
pipeline across two sites: site a and site b each run a watcher, a planner and one applier replica of every
appliance group (edge, vtm, loadmaster), given every engine node through the fleet config, streams at three
replicas. Its files are under <state-dir>/ha, apart from \`portolan up\`'s. Stop it with \`portolan down --ha\`.

--base-port lays out every pipeline port from <p> (20 ports: simulator, emulators, echo backends, health
ports, HAProxy) instead of the fixed demo ports.`;

/** `portolan up`: the whole pipeline on this machine. */
export const up: CliCommand = {
  path: ['up'],
  summary: 'run the whole pipeline locally with sample manifests (--ha: across two sites; stop with `portolan down`)',
  usage,
  async run(args) {
    const { values } = parse(args, {
      ha: { type: 'boolean' },
      kubeconfig: { type: 'string' },
      'http-port': { type: 'string' },
      'https-port': { type: 'string' },
      'state-dir': { type: 'string' },
      'base-port': { type: 'string' },
    });
    const { portolanUp, StackServiceError, upPortSpan } = await import('@portolan/infra');
    const options = upOptions(values);
    if (options.basePort !== undefined && options.basePort + upPortSpan - 1 > 65535)
      throw new UsageError(`--base-port leaves no room for ${upPortSpan} ports`);
    try {
      const r = await portolanUp({ ...options, log: (l) => process.stdout.write(`${l}\n`) });
      process.stdout.write(report(r));
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

/** The options of `portolanUp` from the parsed flags (ports checked). */
function upOptions(values: Record<string, unknown>): UpOptions {
  const port = (name: string): number | undefined => {
    const v = values[name];
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1 || n > 65535) throw new UsageError(`--${name} must be a port number`);
    return n;
  };
  const [httpPort, httpsPort, basePort] = [port('http-port'), port('https-port'), port('base-port')];
  return {
    ...(values['state-dir'] === undefined ? {} : { root: String(values['state-dir']) }),
    ...(values.kubeconfig === undefined ? {} : { kubeconfig: String(values.kubeconfig) }),
    ...(values.ha === true ? { ha: true } : {}),
    ...(httpPort === undefined ? {} : { httpPort }),
    ...(httpsPort === undefined ? {} : { httpsPort }),
    ...(basePort === undefined ? {} : { basePort }),
  };
}

/** What `portolan up` prints once the pipeline runs. */
function report(r: UpResult): string {
  const ha =
    r.ha === undefined
      ? ''
      : `
It is HA: the engines run as a cluster, the pipeline in two sites.
  engines      ${r.ha.engineStateDir}   (PORTOLAN_HA_STATE_DIR=${r.ha.engineStateDir} portolan stack status --ha)
    nats       ${r.ha.engines.natsUrls.join(' ')}   (streams at 3 replicas)
    postgres   ${r.ha.engines.postgresUrl}
    sentinels  ${r.ha.engines.sentinels.map((s) => `${s.host}:${s.port}`).join(' ')}   (master "${r.ha.engines.sentinelName}")
${r.ha.sites.map((s) => `  site ${s.site.padEnd(7)}${s.processes.join(', ')}`).join('\n')}
  leaders      portolan leader status --config ${r.layout.fleetConfig}
`;
  return `
Portolan is up${r.ha === undefined ? '' : ' (HA)'}.
  kubeconfig   ${r.layout.kubeconfig}    (kubectl --kubeconfig ${r.layout.kubeconfig} get ingress -A)
  HAProxy      ${r.httpUrl}  ${r.httpsUrl}
  vTM          http://127.0.0.1:${r.layout.vtmPort}/api/tm   (emulator; admin/admin, local only)
  LoadMaster   https://127.0.0.1:${r.layout.loadmasterPort}/accessv2   (emulator; bal/portolan, local only)
  console      ${r.console.url}   (operator token: ${r.console.operatorToken}; viewer token in ${r.layout.viewerTokenFile})
  fleet config ${r.layout.fleetConfig}
  logs         ${r.layout.root}/run/*.log
${ha}
Try:
  curl -H 'Host: demo.local' ${r.httpUrl}/
  curl -H 'Host: demo.local' ${r.httpUrl}/api/
  curl -H 'Host: canary.demo.local' ${r.httpUrl.replace('127.0.0.1', DEMO_GATEWAY_ADDRESS)}/   (Gateway API, 90/10 canary)
${r.serving ? '' : '\nWARNING: HAProxy did not serve demo.local within 60 s; see the logs above.\n'}`;
}

/** `portolan down`: stops everything `up` started (state is kept). */
export const down: CliCommand = {
  path: ['down'],
  summary: 'stop everything `portolan up` started (state is kept)',
  usage: `Usage: portolan down [--ha] [--state-dir .portolan]

--ha stops what \`portolan up --ha\` started: both sites' processes, HAProxy and the HA engines.`,
  async run(args) {
    const { values } = parse(args, { 'state-dir': { type: 'string' }, ha: { type: 'boolean' } });
    const { portolanDown } = await import('@portolan/infra');
    await portolanDown({
      ...(values['state-dir'] === undefined ? {} : { root: String(values['state-dir']) }),
      ...(values.ha === true ? { ha: true } : {}),
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
