import { Counter, Gauge, Histogram, type Registry } from '@portolan/telemetry';
import type { KindFreshness } from '../core/index.ts';

/** The watcher's Prometheus metrics (docs/operations.md). Gauges are computed at scrape time from the live state. */
export interface WatcherMetrics {
  readonly relists: Counter<'kind' | 'reason'>;
  readonly restarts: Counter<'kind' | 'reason'>;
  readonly decodeErrors: Counter<'kind'>;
  readonly requestErrors: Counter<'kind' | 'status'>;
  readonly tooLarge: Counter<'kind'>;
  readonly published: Counter<'kind' | 'type'>;
  readonly publishRetries: Counter<'kind'>;
  readonly publishLatency: Histogram<'kind'>;
}

/** Live values the gauges read when scraped. */
export interface WatcherGaugeSources {
  freshness(): readonly KindFreshness[];
  objectCounts(): readonly (readonly [kind: string, count: number])[];
  pendingMessages(): number;
}

/** Registers the watcher metrics on `registry`. */
export function createWatcherMetrics(registry: Registry, sources: WatcherGaugeSources): WatcherMetrics {
  registerGauges(registry, sources);
  return createCounters(registry);
}

/** Gauges read at scrape time from the watcher's own state. */
function registerGauges(registry: Registry, sources: WatcherGaugeSources): void {
  const registers = [registry];
  new Gauge({
    name: 'portolan_watcher_last_event_age_seconds',
    help: 'Seconds since the last event, bookmark or list page per kind (the stall detector input).',
    labelNames: ['kind'],
    registers,
    collect() {
      for (const k of sources.freshness()) this.set({ kind: k.kind.kind }, k.ageMs / 1000);
    },
  });
  new Gauge({
    name: 'portolan_watcher_synced',
    help: '1 when every stream of the kind has completed a list and is not stale.',
    labelNames: ['kind'],
    registers,
    collect() {
      for (const k of sources.freshness()) this.set({ kind: k.kind.kind }, k.stale ? 0 : 1);
    },
  });
  new Gauge({
    name: 'portolan_watcher_objects',
    help: 'Objects currently known per kind.',
    labelNames: ['kind'],
    registers,
    collect() {
      for (const [kind, n] of sources.objectCounts()) this.set({ kind }, n);
    },
  });
  new Gauge({
    name: 'portolan_watcher_publish_pending_messages',
    help: 'Messages held for NATS (queued or awaiting ack).',
    registers,
    collect() {
      this.set(sources.pendingMessages());
    },
  });
}

/** Counters and the publish latency histogram, updated as events flow. */
function createCounters(registry: Registry): WatcherMetrics {
  const registers = [registry];
  return {
    relists: new Counter({
      name: 'portolan_watcher_relists_total',
      help: 'Lists per kind, by reason (initial, gone, garbled, stalled, relist-due).',
      labelNames: ['kind', 'reason'],
      registers,
    }),
    restarts: new Counter({
      name: 'portolan_watcher_restarts_total',
      help: 'Watch requests abandoned or retried, by reason.',
      labelNames: ['kind', 'reason'],
      registers,
    }),
    decodeErrors: new Counter({
      name: 'portolan_watcher_decode_errors_total',
      help: 'Watch lines or objects that could not be decoded (each schedules a relist).',
      labelNames: ['kind'],
      registers,
    }),
    requestErrors: new Counter({
      name: 'portolan_watcher_request_errors_total',
      help: 'Failed API requests by HTTP status (0 = transport).',
      labelNames: ['kind', 'status'],
      registers,
    }),
    tooLarge: new Counter({
      name: 'portolan_watcher_objects_too_large_total',
      help: 'Objects too large for the bus, published without their body.',
      labelNames: ['kind'],
      registers,
    }),
    published: new Counter({
      name: 'portolan_watcher_published_total',
      help: 'Messages acked by JetStream.',
      labelNames: ['kind', 'type'],
      registers,
    }),
    publishRetries: new Counter({
      name: 'portolan_watcher_publish_retries_total',
      help: 'Publish attempts that failed and were retried.',
      labelNames: ['kind'],
      registers,
    }),
    publishLatency: new Histogram({
      name: 'portolan_watcher_publish_latency_seconds',
      help: 'From observation to JetStream ack.',
      labelNames: ['kind'],
      registers,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    }),
  };
}
