export { createLogger, redactedPaths, type Logger } from './logger.ts';
export { createMetricsRegistry, metricPrefix, Counter, Gauge, Histogram, Registry } from './metrics.ts';
export { healthHost, startHealthServer, type HealthServer, type HealthCheck } from './health-server.ts';
export {
  startTracing,
  otlpExporterFromEnv,
  injectTraceHeaders,
  extractTraceContext,
  traceIdOf,
  traceHeadersOf,
  recordSpanError,
  InMemorySpanExporter,
  ROOT_CONTEXT,
  context,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Tracing,
  type Span,
  type Tracer,
} from './tracing.ts';
export { execTuned, tunedExecution, persistCompileCache, type ProcessTuning } from './process-tuning.ts';
