import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { busDeclaration, NatsEventBus } from '@portolan/bus';
import { loadFleetConfig, type FleetConfig } from '@portolan/fleet-config';
import { loadFleetKey } from '@portolan/secret-envelope';
import {
  Counter,
  createLogger,
  createMetricsRegistry,
  startHealthServer,
  startTracing,
  type Logger,
  type Registry,
} from '@portolan/telemetry';
import { startHeapGovernor } from './adapters/heap-governor.ts';
import { KubeApiClient } from './adapters/kube-api-client.ts';
import { JetStreamAckTarget } from './adapters/jetstream-ack-target.ts';
import { natsConnectivity } from './adapters/nats-connectivity.ts';
import { ClusterWatcher } from './cluster-watcher.ts';
import { listenForRelistRequests } from './relist-requests.ts';

/**
 * Garbage the heap may hold above its live size before the governor collects (measured with
 * bench/watcher-throughput.ts: the peak RSS stays ~live + this + the fixed runtime, whatever the machine's load).
 */
const HEAP_SLACK_BYTES = 6 * 1024 * 1024;

/** Command-line options of the watcher. */
export interface WatcherArgs {
  readonly config: string;
  readonly cluster: string;
  readonly healthPort: number;
  readonly verbose: boolean;
}

/** A command-line mistake (printed with the usage). */
export class WatcherArgsError extends Error {
  readonly code = 'WATCHER_USAGE';
}

/** Usage text of `portolan watch` and `node services/watcher/src/main.ts`. */
export const watcherUsage = `Usage: portolan watch --config <fleet.yaml> --cluster <name> [--health-port <port>] [--verbose]

Lists and watches one cluster's Ingresses, IngressClasses, Services, EndpointSlices, Nodes and TLS Secrets and
publishes every change, list marker and heartbeat to NATS JetStream. /healthz, /readyz and /metrics are served on
<health-port> of every interface, or of PORTOLAN_HEALTH_HOST when set (default 9464; 0 picks a free port).`;

/** Parses `--config f --cluster c [--health-port p] [--verbose]`. */
export function parseWatcherArgs(args: readonly string[]): WatcherArgs {
  let config: string | undefined;
  let cluster: string | undefined;
  let healthPort = 9464;
  let verbose = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const value = (): string => {
      const v = args[++i];
      if (v === undefined) throw new WatcherArgsError(`${a} needs a value`);
      return v;
    };
    if (a === '--config') config = value();
    else if (a === '--cluster') cluster = value();
    else if (a === '--health-port') healthPort = Number(value());
    else if (a === '--verbose' || a === '-v') verbose = true;
    else throw new WatcherArgsError(`unknown argument ${a}`);
  }
  if (config === undefined || cluster === undefined) throw new WatcherArgsError('--config and --cluster are required');
  if (!Number.isInteger(healthPort) || healthPort < 0 || healthPort > 65535)
    throw new WatcherArgsError('--health-port must be a port number');
  return { config, cluster, healthPort, verbose };
}

/**
 * The composition root: reads the fleet config once, builds the adapters, starts the watcher and the health
 * server, and resolves with a stop function (signals are the caller's business).
 */
export async function runWatcher(
  args: WatcherArgs,
  logger: Logger = createLogger('watcher', { verbose: args.verbose }),
): Promise<{ stop: () => Promise<void>; healthPort: number; watcher: ClusterWatcher }> {
  const { config, cluster } = await clusterOf(args);
  const fleetKey = loadFleetKey(config.secrets.keyFile, config.secrets.keyId);
  const tracing = startTracing('watcher');
  const registry = createMetricsRegistry('watcher');
  const client = await KubeApiClient.fromKubeconfig({
    ...(cluster.kubeconfig === undefined ? {} : { kubeconfig: cluster.kubeconfig }),
    ...(cluster.context === undefined ? {} : { context: cluster.context }),
    env: process.env,
  });
  const { bus, link, acks, serverMax } = await connectBus(config, cluster.name, logger);
  const watcher = ClusterWatcher.start({
    cluster: cluster.name,
    namespaces: cluster.namespaces,
    secretLabelSelector: cluster.secretLabelSelector,
    timing: {
      stallMs: cluster.watch.stallSeconds * 1000,
      relistMs: cluster.watch.relistSeconds * 1000,
      watchTimeoutSeconds: cluster.watch.watchTimeoutSeconds,
    },
    heartbeatMs: cluster.watch.heartbeatSeconds * 1000,
    client,
    bus: acks,
    busConnected: link.connected,
    maxMessageBytes: Math.min(serverMax, config.bus.maxPayloadBytes),
    fleetKey,
    registry,
    logger,
    tracer: tracing.tracer,
    watcherId: `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
    onStreamStalled: stepDownStalledStream(bus, logger),
  });
  // Relists: after a broker fault, and when the planner finds its state differing from what was published.
  const relist = relistAfterBrokerFaults(watcher, logger);
  acks.onBrokerFault = relist.fault;
  const stopListening = listenForRelistRequests(bus, cluster.name, watcher, logger);
  await watcher
    .checkServerVersion()
    .catch((e: unknown) => logger.error({ err: (e as Error).message }, 'cannot read the API server version'));
  const { health, governor } = await serveHealth(args.healthPort, registry, watcher, link);
  const started = { cluster: cluster.name, healthPort: health.port, heapGovernor: governor !== null };
  logger.info({ ...started, namespaces: cluster.namespaces }, 'watcher started');
  return {
    healthPort: health.port,
    watcher,
    stop: async () => {
      relist.stop();
      stopListening();
      governor?.stop();
      await watcher.stop({ flush: false });
      await health.close();
      acks.close();
      await bus.close();
      await tracing.shutdown();
    },
  };
}

/** Opens the bus (declaring the stream) and follows the connection, logging when it drops and returns. */
async function connectBus(config: FleetConfig, clusterName: string, logger: Logger) {
  const bus = await NatsEventBus.open(
    config.bus.url,
    busDeclaration({
      stream: config.bus.stream,
      replicas: config.bus.replicas,
      maxPayloadBytes: config.bus.maxPayloadBytes,
      subjectPrefix: config.bus.subjectPrefix,
    }),
    { name: `watcher-${clusterName}`, noAsyncTraces: true },
  );
  const link = natsConnectivity(bus, (up) =>
    logger[up ? 'info' : 'warn'](
      { bus: config.bus.url },
      up ? 'NATS connection restored' : 'NATS connection lost: holding events',
    ),
  );
  const acks = new JetStreamAckTarget(bus);
  const serverMax = bus.connection.info?.max_payload ?? config.bus.maxPayloadBytes;
  return { bus, link, acks, serverMax };
}

/** The fleet config and the cluster this watcher serves; a cluster the config does not name is a usage error. */
async function clusterOf(
  args: WatcherArgs,
): Promise<{ config: FleetConfig; cluster: FleetConfig['clusters'][number] }> {
  const { config } = await loadFleetConfig(args.config);
  const cluster = config.clusters.find((c) => c.name === args.cluster);
  if (cluster === undefined)
    throw new WatcherArgsError(
      `cluster "${args.cluster}" is not in ${args.config} (known: ${config.clusters.map((c) => c.name).join(', ')})`,
    );
  return { config, cluster };
}

/** The least time between two stepdowns this watcher asks for: a new leader gets time to catch up and take writes. */
const STEPDOWN_EVERY_MS = 60_000;

/**
 * Asks the kube stream's leader to step down when publishes stay unanswered on a live connection (see
 * `NatsEventBus.stepDownKubeLeader`), at most once a minute, and logs what the stream answered.
 */
function stepDownStalledStream(bus: NatsEventBus, logger: Logger): () => void {
  let last = -Infinity;
  return () => {
    if (performance.now() - last < STEPDOWN_EVERY_MS) return;
    last = performance.now();
    logger.warn('the stream takes no writes: asking its leader to step down');
    bus
      .stepDownKubeLeader()
      .then(() => logger.info('the stream leader stepped down'))
      .catch((e: unknown) => logger.warn({ err: (e as Error).message }, 'the stream leader did not step down'));
  };
}

/** How long after the last broker fault the watcher relists: the broker's elections settle first. */
const BROKER_SETTLE_MS = 2_000;

/**
 * Relists every stream once the broker has been quiet for BROKER_SETTLE_MS after a fault (a stream leader elected,
 * a reconnect): what the broker acknowledged around the fault and then lost is published again within seconds,
 * not at the next periodic relist.
 */
function relistAfterBrokerFaults(
  watcher: ClusterWatcher,
  logger: Logger,
): { fault: (why: string) => void; stop: () => void } {
  let timer: NodeJS.Timeout | null = null;
  return {
    fault: (why) => {
      if (timer === null) logger.warn({ why }, 'broker fault: every kind is relisted once the broker settles');
      else clearTimeout(timer);
      timer = setTimeout(() => {
        timer = null;
        watcher.relistAfterBrokerFault();
      }, BROKER_SETTLE_MS);
    },
    stop: () => {
      if (timer !== null) clearTimeout(timer);
    },
  };
}

/** The health server (liveness of the watches, readiness of kinds and bus, /metrics) and the heap governor. */
async function serveHealth(
  port: number,
  registry: Registry,
  watcher: ClusterWatcher,
  link: { connected: () => boolean },
) {
  const health = await startHealthServer({
    port,
    registry,
    live: { watches: () => watcher.liveness() },
    ready: {
      kinds: () => watcher.readiness(),
      bus: () => (link.connected() ? { ok: true } : { ok: false, reason: 'NATS connection down' }),
    },
  });
  const collections = new Counter({
    name: 'portolan_watcher_heap_collections_total',
    help: 'Full collections run by the heap governor (tuned runtime only).',
    registers: [registry],
  });
  const governor = startHeapGovernor({
    slackBytes: HEAP_SLACK_BYTES,
    intervalMs: 100,
    onCollect: () => collections.inc(),
  });
  return { health, governor };
}
