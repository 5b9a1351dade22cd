import type { CliCommand } from '../command.ts';
import { UsageError } from '../command.ts';

const usage = `Usage: portolan watch --config <fleet.yaml> --cluster <name> [--health-port <port>] [--verbose]

Runs the watcher for one cluster of the fleet config: lists and watches Ingresses, IngressClasses, Services,
EndpointSlices, Nodes and TLS Secrets and publishes every change, list marker and heartbeat to NATS JetStream.
Serves /healthz, /readyz and /metrics on 127.0.0.1:<health-port> (default 9464; 0 picks a free port) until
SIGINT/SIGTERM.`;

/** `portolan watch`: the watcher service for one cluster (services/watcher). */
export const watch: CliCommand = {
  path: ['watch'],
  summary: 'watch one cluster and publish its changes to NATS JetStream',
  usage,
  async run(args) {
    const { parseWatcherArgs, runWatcher, WatcherArgsError, execTunedWatcher, watcherMainPath } =
      await import('@portolan/watcher');
    let parsed;
    try {
      parsed = parseWatcherArgs(args);
    } catch (e) {
      if (e instanceof WatcherArgsError) throw new UsageError(e.message, { cause: e });
      throw e;
    }
    // Becomes the watcher process itself (same pid, memory-tuned runtime) where the platform allows it; otherwise
    // it runs in this process below.
    execTunedWatcher(watcherMainPath, args);
    let running;
    try {
      running = await runWatcher(parsed);
    } catch (e) {
      if (!(e instanceof WatcherArgsError)) throw e;
      process.stderr.write(`portolan watch: ${e.message}\n`);
      return 2;
    }
    await new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
    await running.stop();
    return 0;
  },
};
