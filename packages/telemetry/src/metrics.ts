import { Registry, collectDefaultMetrics } from 'prom-client';

/** A Prometheus registry with process metrics (RSS, CPU, event-loop lag) and a `service` label. */
export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}

export { Counter, Gauge, Histogram, Registry } from 'prom-client';
