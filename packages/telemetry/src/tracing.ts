import {
  context,
  propagation,
  trace,
  ROOT_CONTEXT,
  SpanStatusCode,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';

/**
 * Tracing for one service. Spans leave the process over OTLP/HTTP when the standard variables name a collector
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, with the exporter's other OTEL_* settings),
 * or to the exporter a caller passes; otherwise they are made for log correlation only and dropped.
 */
export interface Tracing {
  readonly tracer: Tracer;
  /** True when spans leave the process; a hot path may skip making spans nobody receives. */
  readonly exporting: boolean;
  shutdown(): Promise<void>;
}

let installed = false;

/** Installs the global tracer provider, W3C propagation and async context for `service`. */
export function startTracing(
  service: string,
  options: { exporter?: SpanExporter; batch?: boolean; env?: NodeJS.ProcessEnv } = {},
): Tracing {
  const exporter = options.exporter ?? otlpExporterFromEnv(options.env ?? process.env);
  const processors =
    exporter === undefined
      ? []
      : [options.batch === false ? new SimpleSpanProcessor(exporter) : new BatchSpanProcessor(exporter)];
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    spanProcessors: processors,
  });
  if (!installed) {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    installed = true;
  }
  trace.setGlobalTracerProvider(provider);
  return {
    tracer: provider.getTracer(service),
    exporting: exporter !== undefined,
    shutdown: () => provider.shutdown(),
  };
}

/** An OTLP/HTTP exporter when the environment names an endpoint and does not turn traces off; else undefined. */
export function otlpExporterFromEnv(env: NodeJS.ProcessEnv): SpanExporter | undefined {
  if (env['OTEL_TRACES_EXPORTER'] === 'none' || env['OTEL_SDK_DISABLED'] === 'true') return undefined;
  const traces = env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']?.trim();
  const base = env['OTEL_EXPORTER_OTLP_ENDPOINT']?.trim();
  // The signal-specific variable is used as given; the base endpoint gets the traces path appended (OTLP/HTTP).
  const url = traces ? traces : base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined;
  if (url === undefined) return undefined;
  // Headers, timeout and compression come from the exporter's own reading of the OTEL_EXPORTER_OTLP_* variables.
  return new OTLPTraceExporter({ url });
}

/** Writes the current (or given) span context into message headers (`traceparent`, `tracestate`). */
export function injectTraceHeaders(ctx: Context = context.active()): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return carrier;
}

/** Reads a span context from message headers, so a consumer's span continues the producer's trace. */
export function extractTraceContext(headers: Readonly<Record<string, string>>): Context {
  return propagation.extract(context.active(), headers);
}

/** The headers that make a message's consumer continue the trace under `span` (empty for a non-recording span). */
export function traceHeadersOf(span: Span): Record<string, string> {
  return injectTraceHeaders(trace.setSpan(ROOT_CONTEXT, span));
}

/** Records a failure on a span: the exception event and an error status. */
export function recordSpanError(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/** The trace id of a span, for storing beside records (events, snapshots, applies). */
export function traceIdOf(span: Span): string {
  return span.spanContext().traceId;
}

export {
  InMemorySpanExporter,
  ROOT_CONTEXT,
  context,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type Tracer,
};
