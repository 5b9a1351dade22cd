// The applier process once tuned (main.ts execs into it): `node services/applier/src/main.ts --config <fleet.yaml> --appliance <name> --id <replica-id> [--health-port p]`.
import { ChallengeStore } from '@portolan/acme-issuer';
import type { ApplianceDriver } from '@portolan/appliance-driver';
import { busDeclaration, NatsEventBus } from '@portolan/bus';
import { DriverRegistry } from '@portolan/drivers';
import { FleetConfigError, loadFleetConfig, type ApplianceConfig, type FleetConfig } from '@portolan/fleet-config';
import { LeaderElector, PgEpochStore, RedisLeaseClient, leaseTimings, type LeaderEvent } from '@portolan/leadership';
import { loadFleetKey } from '@portolan/secret-envelope';
import { migrateToLatest, openDatabase, readOpenHolds, type Database, type Kysely } from '@portolan/store';
import { createLogger, createMetricsRegistry, startHealthServer, startTracing, type Logger } from '@portolan/telemetry';
import { ArchivedSecretResolver } from './adapters/archived-secret-resolver.ts';
import { ApplierBus } from './adapters/bus-adapter.ts';
import { startAcme } from './adapters/acme-wiring.ts';
import { ClientNodeKubeApi, type KubeApi } from './adapters/kube-api.ts';
import { KubeWriteback } from './adapters/kube-writeback.ts';
import { PgApplyLog } from './adapters/pg-apply-log.ts';
import { PgSnapshotSource } from './adapters/pg-snapshot-source.ts';
import { Applier } from './applier.ts';
import { createApplierMetrics, type ApplierMetrics } from './applier-metrics.ts';
import { ApplyNotSucceededError } from './errors.ts';
import { ApplierUsageError, applierUsage, parseRunConfig, type ApplierRunConfig } from './run-config.ts';

/** The address Ingress status shows for listeners on the profile's default address. */
function defaultAddressOf(appliance: ApplianceConfig): string | null {
  return appliance.haproxy?.address ?? appliance.loadmaster?.defaultAddress ?? null;
}

/** One Kubernetes client per cluster, built on first use; a cluster that cannot be configured gets none. */
function kubeApis(config: FleetConfig, log: Logger, serviceAccountRoot: string): (cluster: string) => KubeApi | null {
  const apis = new Map<string, KubeApi | null>();
  return (cluster) => {
    if (!apis.has(cluster)) {
      const entry = config.clusters.find((c) => c.name === cluster);
      try {
        apis.set(cluster, entry === undefined ? null : new ClientNodeKubeApi(entry, { serviceAccountRoot }));
      } catch (e) {
        // A bad kubeconfig costs this cluster its status and Events, never the applies: logged, and left unwritten.
        log.error({ err: e, cluster }, 'cannot configure the Kubernetes client: no status or Events for this cluster');
        apis.set(cluster, null);
      }
    }
    return apis.get(cluster) ?? null;
  };
}

function onLeaderEvent(log: Logger, metrics: ApplierMetrics, applier: () => Applier | null): (e: LeaderEvent) => void {
  return (e) => {
    if (e.type === 'elected') {
      metrics.leader.set(1);
      metrics.epoch.set(e.epoch);
      log.info({ epoch: e.epoch, actingDelayMs: e.actingDelayMs }, 'elected leader');
      applier()?.trigger('leadership');
    } else if (e.type === 'lost') {
      metrics.leader.set(0);
      log.warn({ epoch: e.epoch, reason: e.reason }, 'lost leadership: stopped writing');
    } else {
      log.warn({ err: e.error, stage: e.stage }, 'leader election error');
    }
  };
}

/** How often the leader looks for new safety-rule holds to report as Events (a cheap indexed read). */
const HOLD_REPORT_EVERY_MS = 2000;

/** The fleet config and this process's appliance entry, checked. */
async function loadRun(run: ApplierRunConfig): Promise<{
  config: FleetConfig;
  baseDir: string;
  appliance: ApplianceConfig;
  timings: Extract<ReturnType<typeof leaseTimings>, { ok: true }>['timings'];
}> {
  const { config, baseDir } = await loadFleetConfig(run.configFile);
  const appliance = config.appliances.find((a) => a.name === run.appliance);
  if (appliance === undefined) throw new ApplierUsageError(`appliance "${run.appliance}" is not in ${run.configFile}`);
  const timings = leaseTimings(config.leases);
  if (!timings.ok) throw new ApplierUsageError(`leases: ${timings.problem.message}`);
  return { config, baseDir, appliance, timings: timings.timings };
}

/** The appliance's driver; a vTM with `vtm.acme` renders the pending HTTP-01 challenges into its port-80 services. */
async function buildDriver(
  appliance: ApplianceConfig,
  baseDir: string,
): Promise<{ driver: ApplianceDriver<unknown>; challenges: ChallengeStore | null }> {
  const challenges = appliance.driver === 'vtm' && appliance.vtm?.acme !== undefined ? new ChallengeStore() : null;
  const drivers = new DriverRegistry();
  if (challenges !== null)
    drivers.register('vtm', async (a, base) =>
      (await import('@portolan/vtm-driver')).createVtmDriver(a, base, { acmeChallenges: () => challenges.list() }),
    );
  return { driver: await drivers.create(appliance, baseDir), challenges };
}

/** The leader puts a Warning Event on each object the planner's safety rule holds that this appliance serves. */
function reportHolds(
  db: Kysely<Database>,
  clusters: readonly string[],
  appliance: string,
  writeback: KubeWriteback,
  isLeader: () => boolean,
  log: Logger,
): NodeJS.Timeout {
  const timer = setInterval(() => {
    if (!isLeader()) return;
    readOpenHolds(db, clusters).then(
      (holds) => writeback.reportHolds(appliance, holds),
      // The next period reads again; the holds themselves are in the store either way.
      (e: unknown) => log.warn({ err: e }, 'reading the safety rule holds failed'),
    );
  }, HOLD_REPORT_EVERY_MS);
  timer.unref();
  return timer;
}

/** Pushes the ACME challenges through an apply now; rejects unless that apply succeeded. */
async function publishChallenges(applier: Applier): Promise<void> {
  const r = await applier.reconcile('drift-correction');
  if (r.kind === 'applied' && r.status !== 'succeeded')
    throw new ApplyNotSucceededError(`apply ${r.applyId} ended ${r.status}`);
}

/** The ACME issuer of a vTM appliance with `vtm.acme`: it publishes challenges through this applier's applies. */
function startAcmeFor(
  applier: Applier,
  o: {
    config: FleetConfig;
    baseDir: string;
    appliance: ApplianceConfig;
    challenges: ChallengeStore;
    isLeader: () => boolean;
    log: Logger;
  },
): Promise<{ stop(): void }> {
  return startAcme({
    appliance: o.appliance,
    baseDir: o.baseDir,
    clusters: o.config.clusters.filter((c) => o.appliance.clusters?.includes(c.name) ?? true),
    challenges: o.challenges,
    logger: o.log,
    desired: () => applier.currentDesired(),
    isLeader: o.isLeader,
    publish: () => publishChallenges(applier),
  });
}

/** Stops on SIGTERM/SIGINT: the running cycle finishes, deferred writes are made, then the lease is released. */
function onSignals(log: Logger, stopAll: () => Promise<void>): void {
  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping: finishing the running cycle, then releasing the lease');
    // A cycle stuck on an unreachable appliance must not keep the process: the lease then simply expires.
    setTimeout(() => process.exit(1), 10_000).unref();
    await stopAll();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/** The bus connection and the lease client of one replica. */
async function connect(
  config: FleetConfig,
  replicaId: string,
  commandTimeoutMs: number,
): Promise<{ bus: NatsEventBus; lease: RedisLeaseClient }> {
  const bus = await NatsEventBus.open(
    config.bus.url,
    busDeclaration({
      stream: config.bus.stream,
      replicas: config.bus.replicas,
      maxPayloadBytes: config.bus.maxPayloadBytes,
      subjectPrefix: config.bus.subjectPrefix,
    }),
    { name: `applier-${replicaId}` },
  );
  const lease = new RedisLeaseClient(config.leases.redisUrl, { commandTimeoutMs, name: `applier-${replicaId}` });
  return { bus, lease };
}

/** What the Applier is wired with, besides what it is built from here. */
interface ApplierWiring {
  readonly run: ApplierRunConfig;
  readonly config: FleetConfig;
  readonly appliance: ApplianceConfig;
  readonly db: Kysely<Database>;
  readonly bus: NatsEventBus;
  readonly driver: ApplianceDriver<unknown>;
  readonly elector: LeaderElector;
  readonly writeback: KubeWriteback;
  readonly metrics: ApplierMetrics;
  readonly log: Logger;
}

function buildApplier(w: ApplierWiring): Applier {
  const { appliance, config, db } = w;
  return new Applier({
    appliance: appliance.name,
    replicaId: w.run.replicaId,
    driver: w.driver,
    snapshots: new PgSnapshotSource(db),
    log: new PgApplyLog(db),
    leadership: () => w.elector.current(),
    secrets: new ArchivedSecretResolver(db, loadFleetKey(config.secrets.keyFile, config.secrets.keyId)),
    drift: { intervalMs: appliance.drift.intervalSeconds * 1000, policy: appliance.drift.policy },
    bus: new ApplierBus(w.bus, appliance.name),
    writeback: w.writeback,
    defaultAddress: defaultAddressOf(appliance),
    metrics: w.metrics,
    logger: w.log,
  });
}

/** The composition root: build, wire and start in the order each part is needed; `onSignals` undoes it in reverse. */
async function main(): Promise<void> {
  const run = parseRunConfig(process.argv.slice(2));
  const log = createLogger('applier', { verbose: run.verbose });
  const { config, baseDir, appliance, timings } = await loadRun(run);
  const group = appliance.group ?? appliance.name;
  // The Applier's spans go to the global tracer this installs (OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set).
  const tracing = startTracing('applier');
  const db = openDatabase(config.store.url);
  await migrateToLatest(db);
  const registry = createMetricsRegistry('applier');
  let applier: Applier | null = null;
  const metrics = createApplierMetrics(registry, () => applier?.lastApplied()?.finishedAt.getTime() ?? null);
  const { bus, lease } = await connect(config, run.replicaId, timings.commandTimeoutMs);
  const onEvent = onLeaderEvent(log, metrics, () => applier);
  const elector = new LeaderElector({
    group,
    holder: run.replicaId,
    timings,
    lease,
    epochs: new PgEpochStore(db),
    onEvent,
  });
  const { driver, challenges } = await buildDriver(appliance, baseDir);
  const writeback = new KubeWriteback({
    apiFor: kubeApis(config, log, run.serviceAccountRoot),
    reportingInstance: run.replicaId,
    onError: (e) => log.warn({ err: e }, 'Kubernetes write-back failed'),
    isLeader: () => elector.current() !== null,
    // vTM: Ingresses on the default traffic IP group show the group's addresses as the driver read them back.
    defaultAddresses: () => driver.defaultAddresses(),
  });
  const started = buildApplier({ run, config, appliance, db, bus, driver, elector, writeback, metrics, log });
  applier = started;
  await started.start();
  elector.start();
  const isLeader = (): boolean => elector.current() !== null;
  const servedClusters = appliance.clusters ?? config.clusters.map((c) => c.name);
  const holdReporter = reportHolds(db, servedClusters, appliance.name, writeback, isLeader, log);
  const acme =
    challenges === null ? null : await startAcmeFor(started, { config, baseDir, appliance, challenges, isLeader, log });
  const health = await startHealthServer({
    port: run.healthPort,
    registry,
    ready: {
      bus: () => (bus.connection.isClosed() ? { ok: false, reason: 'NATS connection closed' } : { ok: true }),
      snapshots: () => started.readiness(),
    },
  });
  log.info({ appliance: appliance.name, group, replica: run.replicaId, healthPort: health.port }, 'applier started');
  onSignals(log, async () => {
    acme?.stop();
    clearInterval(holdReporter);
    await started.stop();
    await elector.stop();
    writeback.close();
    await Promise.allSettled([driver.close(), bus.close(), health.close(), db.destroy(), tracing.shutdown()]);
    lease.close();
  });
}

main().catch((e: unknown) => {
  if (e instanceof ApplierUsageError || e instanceof FleetConfigError) {
    process.stderr.write(`applier: ${e.message}\n${e instanceof ApplierUsageError ? `${applierUsage}\n` : ''}`);
    process.exit(2);
  }
  process.stderr.write(`applier: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
