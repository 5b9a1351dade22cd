import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { context, healthHost, otlpExporterFromEnv, startHealthServer, startTracing, trace } from './index.ts';
import { Registry } from './metrics.ts';

interface Received {
  readonly path: string;
  readonly body: {
    resourceSpans: {
      resource: { attributes: { key: string; value: { stringValue?: string } }[] };
      scopeSpans: { spans: { name: string; traceId: string; parentSpanId?: string }[] }[];
    }[];
  };
}

/** A collector of our own: an OTLP/HTTP endpoint that records every JSON export it receives. */
async function collector(): Promise<{ url: string; received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let raw = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw);
      received.push({ path: req.url ?? '', body: JSON.parse(raw.toString('utf8')) as Received['body'] });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, received, close: () => new Promise((r) => server.close(() => r())) };
}

test('spans go out over OTLP/HTTP to the endpoint the standard variables name, one trace per parent', async () => {
  const sink = await collector();
  try {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url };
    const tracing = startTracing('watcher', { env });
    const parent = tracing.tracer.startSpan('watcher.publish');
    const child = tracing.tracer.startSpan('planner.fold', {}, trace.setSpan(context.active(), parent));
    child.end();
    parent.end();
    await tracing.shutdown();
    assert.equal(sink.received.length >= 1, true, 'the collector received an export');
    assert.equal(sink.received[0]!.path, '/v1/traces', 'the traces path is appended to the base endpoint');
    const spans = sink.received.flatMap((r) =>
      r.body.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)),
    );
    assert.deepEqual(spans.map((s) => s.name).sort(), ['planner.fold', 'watcher.publish']);
    assert.equal(new Set(spans.map((s) => s.traceId)).size, 1, 'child and parent share one trace');
    const service = sink.received[0]!.body.resourceSpans[0]!.resource.attributes.find((a) => a.key === 'service.name');
    assert.equal(service?.value.stringValue, 'watcher');
  } finally {
    await sink.close();
  }
});

test('no endpoint, or traces turned off, means no exporter', () => {
  assert.equal(otlpExporterFromEnv({}), undefined);
  assert.equal(otlpExporterFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: '' }), undefined);
  assert.equal(
    otlpExporterFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:4318', OTEL_TRACES_EXPORTER: 'none' }),
    undefined,
  );
  assert.notEqual(otlpExporterFromEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://x:4318/v1/traces' }), undefined);
});

test('health listens on every interface unless PORTOLAN_HEALTH_HOST narrows it', async () => {
  assert.equal(healthHost({}), undefined);
  assert.equal(healthHost({ PORTOLAN_HEALTH_HOST: ' 127.0.0.1 ' }), '127.0.0.1');
  const server = await startHealthServer({ port: 0, registry: new Registry() });
  try {
    const res = await fetch(`http://127.0.0.1:${server.port}/healthz`);
    assert.equal(res.status, 200, 'reachable on loopback while bound to all interfaces');
  } finally {
    await server.close();
  }
});
