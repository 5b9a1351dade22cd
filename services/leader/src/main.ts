// Composition root of the leader monitor: `node services/leader/src/main.ts --config <fleet.yaml>
// [--health-port p] [--interval s] [--verbose]`. Every few seconds it reads each appliance group's lease (Redis)
// and latest fencing epoch (Postgres) and serves them on /metrics, so an operator can alert on a group nobody
// leads. It only reads: campaigning and fencing stay in the appliers (@portolan/leadership).
import { FleetConfigError, loadFleetConfig } from '@portolan/fleet-config';
import { PgEpochStore, RedisLeaseClient } from '@portolan/leadership';
import { migrateToLatest, openDatabase } from '@portolan/store';
import { createLogger, createMetricsRegistry, startHealthServer } from '@portolan/telemetry';
import { createLeaderMetrics } from './leader-metrics.ts';
import { LeaderMonitor } from './leader-monitor.ts';
import { LeaderUsageError, leaderUsage, parseRunConfig } from './run-config.ts';

async function main(): Promise<void> {
  const run = parseRunConfig(process.argv.slice(2));
  const log = createLogger('leader', { verbose: run.verbose });
  const { config } = await loadFleetConfig(run.configFile);
  const groups = [...new Set(config.appliances.map((a) => a.group ?? a.name))].sort();

  const db = openDatabase(config.store.url, { max: 2 });
  // The epochs table may not exist yet on a fresh database; migrating is safe beside the other services.
  await migrateToLatest(db);
  const lease = new RedisLeaseClient(config.leases.redisUrl, { commandTimeoutMs: 2000, name: 'portolan-leader' });
  const registry = createMetricsRegistry('leader');
  const monitor = new LeaderMonitor({
    groups,
    lease,
    epochs: new PgEpochStore(db),
    metrics: createLeaderMetrics(registry),
    log,
    intervalMs: run.intervalMs,
  });
  const health = await startHealthServer({ port: run.healthPort, registry, ready: { status: monitor.readiness } });
  log.info({ groups, healthPort: health.port, intervalMs: run.intervalMs }, 'leader monitor started');

  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      log.info({ signal }, 'leader monitor stopping');
      monitor.stop();
    });
  try {
    await monitor.start();
  } finally {
    await Promise.allSettled([health.close(), db.destroy()]);
    lease.close();
  }
}

main().catch((e: unknown) => {
  if (e instanceof LeaderUsageError || e instanceof FleetConfigError) {
    process.stderr.write(`leader: ${e.message}\n${e instanceof LeaderUsageError ? `${leaderUsage}\n` : ''}`);
    process.exit(2);
  }
  process.stderr.write(`leader: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
