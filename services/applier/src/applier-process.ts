// The applier process once tuned (main.ts execs into it): `node services/applier/src/main.ts --config <fleet.yaml> --appliance <name> --id <replica-id> [--health-port p]`.
import { busDeclaration, NatsEventBus } from '@portolan/bus';
import { FleetConfigError, loadFleetConfig, type ApplianceConfig, type FleetConfig } from '@portolan/fleet-config';
import { LeaderElector, PgEpochStore, RedisLeaseClient, leaseTimings, type LeaderEvent } from '@portolan/leadership';
import { loadFleetKey } from '@portolan/secret-envelope';
import { migrateToLatest, openDatabase, readOpenHolds } from '@portolan/store';
import { createLogger, createMetricsRegistry, startHealthServer, type Logger } from '@portolan/telemetry';
import { ArchivedSecretResolver } from './adapters/archived-secret-resolver.ts';
import { ApplierBus } from './adapters/bus-adapter.ts';
import { ChallengeStore } from '@portolan/acme-issuer';
import { startAcme } from './adapters/acme-wiring.ts';
import { DriverRegistry } from '@portolan/drivers';
import { ClientNodeKubeApi, type KubeApi } from './adapters/kube-api.ts';
import { KubeWriteback } from './adapters/kube-writeback.ts';
import { PgApplyLog } from './adapters/pg-apply-log.ts';
import { PgSnapshotSource } from './adapters/pg-snapshot-source.ts';
import { Applier } from './applier.ts';
import { createApplierMetrics, type ApplierMetrics } from './applier-metrics.ts';
import { ApplierUsageError, applierUsage, parseRunConfig } from './run-config.ts';

/** The address Ingress status shows for listeners on the profile's default address. */
function defaultAddressOf(appliance: ApplianceConfig): string | null {
  return appliance.haproxy?.address ?? appliance.loadmaster?.defaultAddress ?? null;
}

/** One Kubernetes client per cluster, built on first use; a cluster that cannot be configured gets none. */
function kubeApis(config: FleetConfig, log: Logger): (cluster: string) => KubeApi | null {
  const apis = new Map<string, KubeApi | null>();
  return (cluster) => {
    if (!apis.has(cluster)) {
      const entry = config.clusters.find((c) => c.name === cluster);
      try {
        apis.set(cluster, entry === undefined ? null : new ClientNodeKubeApi(entry));
      } catch (e) {
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

async function main(): Promise<void> {
  const run = parseRunConfig(process.argv.slice(2));
  const log = createLogger('applier', { verbose: run.verbose });
  const { config, baseDir } = await loadFleetConfig(run.configFile);
  const appliance = config.appliances.find((a) => a.name === run.appliance);
  if (appliance === undefined) throw new ApplierUsageError(`appliance "${run.appliance}" is not in ${run.configFile}`);
  const timings = leaseTimings(config.leases);
  if (!timings.ok) throw new ApplierUsageError(`leases: ${timings.problem.message}`);
  const group = appliance.group ?? appliance.name;

  const db = openDatabase(config.store.url);
  await migrateToLatest(db);
  const registry = createMetricsRegistry('applier');
  let applier: Applier | null = null;
  const metrics = createApplierMetrics(registry, () => applier?.lastApplied()?.finishedAt.getTime() ?? null);
  const bus = await NatsEventBus.open(
    config.bus.url,
    busDeclaration({
      stream: config.bus.stream,
      replicas: config.bus.replicas,
      maxPayloadBytes: config.bus.maxPayloadBytes,
      subjectPrefix: config.bus.subjectPrefix,
    }),
    { name: `applier-${run.replicaId}` },
  );
  const lease = new RedisLeaseClient(config.leases.redisUrl, {
    commandTimeoutMs: timings.timings.commandTimeoutMs,
    name: `applier-${run.replicaId}`,
  });
  const elector = new LeaderElector({
    group,
    holder: run.replicaId,
    timings: timings.timings,
    lease,
    epochs: new PgEpochStore(db),
    onEvent: onLeaderEvent(log, metrics, () => applier),
  });
  // The vTM integration's use-lets-encrypt: pending HTTP-01 challenges are rendered into the vTM's port-80 services.
  const challenges = appliance.driver === 'vtm' && appliance.vtm?.acme !== undefined ? new ChallengeStore() : null;
  const drivers = new DriverRegistry();
  if (challenges !== null)
    drivers.register('vtm', async (a, base) =>
      (await import('@portolan/vtm-driver')).createVtmDriver(a, base, { acmeChallenges: () => challenges.list() }),
    );
  const driver = await drivers.create(appliance, baseDir);
  const writeback = new KubeWriteback({
    apiFor: kubeApis(config, log),
    reportingInstance: run.replicaId,
    onError: (e) => log.warn({ err: e }, 'Kubernetes write-back failed'),
    // vTM: Ingresses on the default traffic IP group show the group's addresses as the driver read them back.
    defaultAddresses: () => driver.defaultAddresses(),
  });
  applier = new Applier({
    appliance: appliance.name,
    replicaId: run.replicaId,
    driver,
    snapshots: new PgSnapshotSource(db),
    log: new PgApplyLog(db),
    leadership: () => elector.current(),
    secrets: new ArchivedSecretResolver(db, loadFleetKey(config.secrets.keyFile, config.secrets.keyId)),
    drift: { intervalMs: appliance.drift.intervalSeconds * 1000, policy: appliance.drift.policy },
    bus: new ApplierBus(bus, appliance.name),
    writeback,
    defaultAddress: defaultAddressOf(appliance),
    metrics,
    logger: log,
  });
  await applier.start();
  elector.start();
  // The planner records the safety rule's holds; the leader puts a Warning Event on each held object it serves.
  const servedClusters = appliance.clusters ?? config.clusters.map((c) => c.name);
  const holdReporter = setInterval(() => {
    if (elector.current() === null) return;
    readOpenHolds(db, servedClusters).then(
      (holds) => writeback.reportHolds(appliance.name, holds),
      (e: unknown) => log.warn({ err: e }, 'reading the safety rule holds failed'),
    );
  }, HOLD_REPORT_EVERY_MS);
  holdReporter.unref();
  const acme =
    challenges === null
      ? null
      : await startAcme({
          appliance,
          baseDir,
          clusters: config.clusters.filter((c) => appliance.clusters?.includes(c.name) ?? true),
          challenges,
          logger: log,
          desired: () => applier?.currentDesired() ?? null,
          isLeader: () => elector.current() !== null,
          publish: async () => {
            const r = await applier!.reconcile('drift-correction');
            if (r.kind === 'applied' && r.status !== 'succeeded')
              throw new Error(`apply ${r.applyId} ended ${r.status}`);
          },
        });
  const health = await startHealthServer({
    port: run.healthPort,
    registry,
    ready: {
      bus: () => (bus.connection.isClosed() ? { ok: false, reason: 'NATS connection closed' } : { ok: true }),
      snapshots: () => applier?.readiness() ?? { ok: false, reason: 'starting' },
    },
  });
  log.info({ appliance: appliance.name, group, replica: run.replicaId, healthPort: health.port }, 'applier started');

  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping: finishing the running cycle, then releasing the lease');
    // A cycle stuck on an unreachable appliance must not keep the process: the lease then simply expires.
    setTimeout(() => process.exit(1), 10_000).unref();
    acme?.stop();
    clearInterval(holdReporter);
    await applier?.stop();
    await elector.stop();
    writeback.close();
    await Promise.allSettled([driver.close(), bus.close(), health.close(), db.destroy()]);
    lease.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((e: unknown) => {
  if (e instanceof ApplierUsageError || e instanceof FleetConfigError) {
    process.stderr.write(`applier: ${e.message}\n${e instanceof ApplierUsageError ? `${applierUsage}\n` : ''}`);
    process.exit(2);
  }
  process.stderr.write(`applier: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
