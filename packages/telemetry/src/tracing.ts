import { context, propagation, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
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

/** Tracing for one service. Spans are exported only when an exporter is given (none ships by default: no network here). */
export interface Tracing {
  readonly tracer: Tracer;
  shutdown(): Promise<void>;
}

let installed = false;

/** Installs the global tracer provider, W3C propagation and async context for `service`. */
export function startTracing(service: string, options: { exporter?: SpanExporter; batch?: boolean } = {}): Tracing {
  const processors =
    options.exporter === undefined
      ? []
      : [
          options.batch === false
            ? new SimpleSpanProcessor(options.exporter)
            : new BatchSpanProcessor(options.exporter),
        ];
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
  return { tracer: provider.getTracer(service), shutdown: () => provider.shutdown() };
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

/** The trace id of a span, for storing beside records (events, snapshots, applies). */
export function traceIdOf(span: Span): string {
  return span.spanContext().traceId;
}

export { InMemorySpanExporter, context, trace, type Span, type Tracer };
