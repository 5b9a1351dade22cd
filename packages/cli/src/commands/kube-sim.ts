import { parseArgs } from 'node:util';
import type { CliCommand } from '../command.ts';
import { UsageError, usageErrorFrom } from '../command.ts';

const usage = `Usage: portolan kube-sim --port <port> --kubeconfig <file> [--state <file>] [--version 1.31] [--host 127.0.0.1] [--token-auth-file <csv>] [--log-requests]

Runs the Kubernetes API simulator over HTTPS (generated CA, bearer token), writes a kubeconfig
for it to <file> and serves until SIGINT/SIGTERM. With --state, objects survive restarts. With
--token-auth-file, the CSV's tokens (token,user,uid,"group1,group2") authenticate as their users, as
kube-apiserver's flag of that name, and pass TokenReviews.`;

function parse(args: readonly string[]) {
  try {
    return parseArgs({
      args: [...args],
      strict: true,
      options: {
        port: { type: 'string' },
        kubeconfig: { type: 'string' },
        state: { type: 'string' },
        version: { type: 'string' },
        host: { type: 'string' },
        'token-auth-file': { type: 'string' },
        'log-requests': { type: 'boolean' },
      },
    }).values;
  } catch (e) {
    usageErrorFrom(e);
  }
}

/** `portolan kube-sim`: the Kubernetes API simulator as a standalone process (used by `portolan up`). */
export const kubeSim: CliCommand = {
  path: ['kube-sim'],
  summary: 'run the Kubernetes API simulator and write a kubeconfig for it',
  usage,
  async run(args) {
    const v = parse(args);
    const port = Number(v.port ?? '');
    if (!Number.isInteger(port) || port < 0 || port > 65535 || v.port === undefined)
      throw new UsageError('--port must be a TCP port (0 picks a free one)');
    if (v.kubeconfig === undefined || v.kubeconfig === '') throw new UsageError('--kubeconfig <file> is required');
    const { startKubeSim } = await import('@portolan/kube-sim');
    const sim = await startKubeSim({
      port,
      host: v.host ?? '127.0.0.1',
      version: v.version ?? '1.31',
      statePath: v.state,
      tokenAuthFile: v['token-auth-file'],
      onRequest:
        v['log-requests'] === true ? (e) => process.stdout.write(`${e.method} ${e.url} ${e.status}\n`) : undefined,
    });
    await sim.writeKubeconfig(v.kubeconfig);
    process.stdout.write(`kube-sim serving ${sim.url}; kubeconfig written to ${v.kubeconfig}\n`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await sim.close();
    return 0;
  },
};
