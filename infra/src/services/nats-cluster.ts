import path from 'node:path';
import { nodeCommand, nodeHost, type HaStackConfig } from '../ha-stack-config.ts';
import { daemonService, type StackService } from './daemon-service.ts';

/** The name of the HA stack's NATS cluster. */
const clusterName = 'portolan-ha';

/**
 * The three nodes of a NATS cluster with JetStream (`nats-1`..`nats-3`), each routed to the other two. A node is
 * healthy once its monitor's `/healthz?js-server-only=true` passes (JetStream is up and current with the meta
 * group's leader) or it leads the meta group, so start the three together, as one alone never becomes healthy.
 * Streams and consumers are not part of it: a restarted node serves clients while its replicas catch up, and an
 * idle consumer's replica may stay "not current" for minutes on nats-server 2.9.
 */
export function natsClusterServices(config: HaStackConfig, binary: string): StackService[] {
  return config.nats.map((node, i) => {
    const name = `nats-${i + 1}`;
    const dir = path.join(config.stateDir, name);
    const host = nodeHost(config, name);
    const routes = config.nats
      .map((other, j) => ({ other, j }))
      .filter(({ j }) => j !== i)
      .map(({ other, j }) => `nats://${nodeHost(config, `nats-${j + 1}`)}:${other.cluster}`)
      .join(',');
    // The monitor listens on the client address (-a) too.
    const { command, args } = nodeCommand(config, name, binary, [
      ...['-a', host, '-p', String(node.client), '-m', String(node.monitor)],
      ...['-js', '-sd', path.join(dir, 'jetstream'), '-n', name],
      ...['--cluster_name', clusterName, '--cluster', `nats://${host}:${node.cluster}`, '--routes', routes],
    ]);
    return daemonService({
      name,
      port: node.client,
      host,
      dir,
      command,
      args,
      healthy: () => natsHealthy(host, node.monitor, name),
      startTimeoutMs: 60_000,
    });
  });
}

/**
 * True when the node's monitor reports its JetStream server current with the meta leader, or the node leads the
 * meta group itself: nats-server 2.9 can have a node elected meta leader during bootstrap answer "not current with
 * the meta leader" on /healthz for minutes, while the meta group (which it leads) works.
 */
async function natsHealthy(host: string, monitorPort: number, name: string): Promise<boolean> {
  const monitor = (route: string): Promise<Response> =>
    fetch(`http://${host}:${monitorPort}${route}`, { signal: AbortSignal.timeout(1000) });
  try {
    if ((await monitor('/healthz?js-server-only=true')).ok) return true;
    const jsz = (await (await monitor('/jsz')).json()) as { meta_cluster?: { leader?: string } };
    return jsz.meta_cluster?.leader === name;
  } catch {
    // Not listening yet, or not answering within the second: the starter polls again.
    return false;
  }
}
