// The planner process (main.ts runs it after replacing itself by the tuned runtime, runtime-tuning.ts).
import { parseArgs } from 'node:util';
import { loadFleetConfig } from '@portolan/fleet-config';
import { openDatabase, migrateToLatest } from '@portolan/store';
import { busDeclaration, NatsEventBus } from '@portolan/bus';
import { createLogger, createMetricsRegistry, startHealthServer, startTracing } from '@portolan/telemetry';
import { PgPlannerStore } from './adapters/pg-planner-store.ts';
import { PlannerService } from './planner-service.ts';
import { plannerMetrics } from './planner-metrics.ts';

const { values } = parseArgs({
  options: {
    config: { type: 'string' },
    'health-port': { type: 'string', default: '0' },
    verbose: { type: 'boolean', default: false },
  },
});
if (values.config === undefined) {
  process.stderr.write('usage: planner --config <fleet.yaml> [--health-port p] [--verbose]\n');
  process.exit(2);
}
const log = createLogger('planner', { verbose: values.verbose });
const { config, hash } = await loadFleetConfig(values.config);
const tracing = startTracing('planner');
const registry = createMetricsRegistry('planner');
// The gauges read the service at scrape time; the health server (the only scraper) starts after it exists.
const metrics = plannerMetrics(registry, {
  committedPosition: () => service.committedPosition,
  foldedHeartbeats: () => service.heartbeats,
});

const db = openDatabase(config.store.url);
await migrateToLatest(db);
const store = new PgPlannerStore(db);
await store.recordFleetConfig(hash, config);
const bus = await NatsEventBus.open(
  config.bus.url,
  busDeclaration({
    stream: config.bus.stream,
    replicas: config.bus.replicas,
    maxPayloadBytes: config.bus.maxPayloadBytes,
    subjectPrefix: config.bus.subjectPrefix,
  }),
  { name: 'planner' },
);
const service = new PlannerService({
  store,
  bus,
  config,
  fleetConfigHash: hash,
  log,
  metrics,
  // Spans nobody receives cost the fold a few microseconds per message: none are made without a collector.
  tracer: tracing.exporting ? tracing.tracer : null,
});

let recovered = false;
let lastBatchAt = performance.now();
const health = await startHealthServer({
  port: Number(values['health-port']),
  registry,
  live: { bus: () => (bus.connection.isClosed() ? { ok: false, reason: 'NATS connection closed' } : { ok: true }) },
  ready: {
    recovered: () => (recovered ? { ok: true } : { ok: false, reason: 'rebuilding the world from the archive' }),
  },
});
const started = performance.now();
const { replayed, snapshots } = await service.recover();
recovered = true;
log.info(
  {
    replayed,
    snapshots,
    position: service.committedPosition,
    ms: Math.round(performance.now() - started),
    healthPort: health.port,
  },
  'planner recovered from the archive',
);

const stop = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
await bus.consumeBatches(
  'planner',
  async (batch) => {
    await service.handleBatch(batch);
    lastBatchAt = performance.now();
    metrics.observeCommitted(Date.now());
  },
  {
    signal: stop.signal,
    onError: (e) => {
      metrics.batchFailures.inc();
      log.error({ err: e instanceof Error ? e.message : String(e) }, 'planner batch failed; it will be redelivered');
    },
  },
);
log.info({ idleMs: Math.round(performance.now() - lastBatchAt) }, 'planner stopping');
await bus.close();
await health.close();
await db.destroy();
// Exports the spans still batched.
await tracing.shutdown();
