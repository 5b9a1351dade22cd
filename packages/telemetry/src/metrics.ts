import { Registry, collectDefaultMetrics } from 'prom-client';

/**
 * A Prometheus registry with process metrics (RSS, CPU, event-loop lag) and a `service` label. Every metric of a
 * service is named `portolan_<service>_…`, the process metrics too (`portolan_watcher_process_resident_memory_bytes`),
 * so one prefix finds all of a service's series.
 */
export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry, prefix: metricPrefix(service) });
  return registry;
}

/** The prefix of every metric `service` exports (characters a metric name cannot hold become `_`). */
export function metricPrefix(service: string): string {
  return `portolan_${service.replace(/[^a-zA-Z0-9_]/g, '_')}_`;
}

export { Counter, Gauge, Histogram, Registry } from 'prom-client';
