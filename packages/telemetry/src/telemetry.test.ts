import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from './logger.ts';
import { createMetricsRegistry, Counter } from './metrics.ts';
import { tunedExecution } from './process-tuning.ts';
import { startHealthServer } from './health-server.ts';
import {
  startTracing,
  injectTraceHeaders,
  extractTraceContext,
  InMemorySpanExporter,
  context,
  trace,
} from './tracing.ts';

test('logs never carry secret-bearing fields in clear', () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const log = createLogger('test', { destination: sink });
  log.info(
    {
      password: 'hunter2',
      appliance: { password: 'pw2', url: 'https://lb' },
      privateKeyPem: '-----BEGIN PRIVATE KEY-----',
      headers: { authorization: 'Basic YWRtaW46YWRtaW4=' },
    },
    'connecting',
  );
  const text = lines.join('');
  for (const secret of ['hunter2', 'pw2', 'BEGIN PRIVATE KEY', 'YWRtaW46'])
    assert.ok(!text.includes(secret), `${secret} leaked: ${text}`);
  assert.ok(text.includes('https://lb'), 'non-secret fields are kept');
  assert.equal(JSON.parse(text).msg, 'connecting');
});

test('health server: /healthz, /readyz with reasons, /metrics in Prometheus format', async () => {
  const registry = createMetricsRegistry('test');
  const published = new Counter({ name: 'events_published_total', help: 'events published', registers: [registry] });
  published.inc(3);
  let synced = false;
  const server = await startHealthServer({
    port: 0,
    registry,
    live: { loop: () => ({ ok: true }) },
    ready: { watch: () => (synced ? { ok: true } : { ok: false, reason: 'endpointslices not synced' }) },
  });
  try {
    const get = async (p: string): Promise<[number, string]> => {
      const r = await fetch(`http://127.0.0.1:${server.port}${p}`);
      return [r.status, await r.text()];
    };
    assert.deepEqual(await get('/healthz'), [200, 'ok\n']);
    assert.deepEqual(await get('/readyz'), [503, 'watch: endpointslices not synced\n']);
    synced = true;
    assert.deepEqual(await get('/readyz'), [200, 'ok\n']);
    const [status, metrics] = await get('/metrics');
    assert.equal(status, 200);
    assert.match(metrics, /events_published_total\{service="test"\} 3/);
    assert.match(metrics, /^portolan_test_process_resident_memory_bytes\{service="test"\} \d+/m);
    assert.doesNotMatch(metrics, /^process_resident_memory_bytes/m, 'process metrics carry the service prefix');
  } finally {
    await server.close();
  }
});

test('trace context survives a trip through message headers: the consumer span joins the producer trace', async () => {
  const exporter = new InMemorySpanExporter();
  const tracing = startTracing('test', { exporter, batch: false });
  const producer = tracing.tracer.startSpan('publish');
  const headers = context.with(trace.setSpan(context.active(), producer), () => injectTraceHeaders());
  producer.end();
  assert.match(headers.traceparent ?? '', /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  const consumer = tracing.tracer.startSpan('consume', {}, extractTraceContext(headers));
  consumer.end();
  const [p, c] = exporter.getFinishedSpans();
  assert.equal(c?.spanContext().traceId, p?.spanContext().traceId);
  assert.equal(c?.parentSpanContext?.spanId, p?.spanContext().spanId);
  await tracing.shutdown();
});

test('a tuned service process gets its flags first (flags given to Node win), the same arguments, and is marked so it does not exec again', () => {
  const tuning = { flags: ['--max-semi-space-size=64'], envVar: 'PORTOLAN_TEST_RUNTIME' };
  const { argv, env } = tunedExecution(tuning, '/srv/main.ts', ['--id', 'a'], ['--inspect'], {
    PATH: '/bin',
    MALLOC_ARENA_MAX: '4',
    UNSET: undefined,
  });
  assert.deepEqual(argv.slice(1), ['--max-semi-space-size=64', '--inspect', '/srv/main.ts', '--id', 'a']);
  assert.equal(env['PORTOLAN_TEST_RUNTIME'], 'tuned');
  assert.equal(env['MALLOC_ARENA_MAX'], '4', 'settings the operator made are kept');
  assert.ok(!('UNSET' in env));
});
