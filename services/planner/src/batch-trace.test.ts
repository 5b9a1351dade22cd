import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { BusMessage } from '@portolan/bus';
import { InMemorySpanExporter, startTracing } from '@portolan/telemetry';
import { BatchTrace } from './batch-trace.ts';

const exporter = new InMemorySpanExporter();
const tracing = startTracing('planner', { exporter, batch: false });

/** A publish span of the watcher, as its traceparent header. */
function published(traceId: string, spanId: string): Record<string, string> {
  return { traceparent: `00-${traceId}-${spanId}-01` };
}

function message(streamSeq: number, headers: Record<string, string>): BusMessage {
  return { subject: 'kube.c1.ingress', data: new Uint8Array(), streamSeq, redelivered: false, headers };
}

const traceA = 'a'.repeat(32);
const traceB = 'b'.repeat(32);

test('each traced change is folded in its own trace; the commit continues the newest and links the others', async () => {
  exporter.reset();
  const spans = new BatchTrace(tracing.tracer);
  spans.fold(message(1, published(traceA, '1'.repeat(16))), () => undefined);
  spans.fold(message(2, {}), () => undefined);
  spans.fold(message(3, published(traceB, '2'.repeat(16))), () => undefined);
  let announced: Readonly<Record<string, string>> = {};
  const n = await spans.commit(3, 3, async (headers) => {
    announced = headers;
    return 1;
  });
  assert.equal(n, 1);
  assert.equal(spans.traceId, traceB, 'snapshots record the trace of the newest traced change');
  const finished = exporter.getFinishedSpans();
  const folds = finished.filter((s) => s.name === 'planner.fold');
  assert.deepEqual(
    folds.map((s) => [s.spanContext().traceId, s.parentSpanContext?.spanId]),
    [
      [traceA, '1'.repeat(16)],
      [traceB, '2'.repeat(16)],
    ],
    'one fold span per traced message, a child of its publish span; none for the untraced one',
  );
  const commit = finished.find((s) => s.name === 'planner.commit')!;
  assert.equal(commit.spanContext().traceId, traceB);
  assert.equal(commit.parentSpanContext?.spanId, folds[1]!.spanContext().spanId);
  assert.deepEqual(
    commit.links.map((l) => l.context.spanId),
    [folds[0]!.spanContext().spanId],
  );
  assert.equal(announced.traceparent, `00-${traceB}-${commit.spanContext().spanId}-01`, 'announcements carry it on');
});

test('a failed commit is recorded on its span and rethrown', async () => {
  exporter.reset();
  const spans = new BatchTrace(tracing.tracer);
  spans.fold(message(1, published(traceA, '3'.repeat(16))), () => undefined);
  await assert.rejects(
    spans.commit(1, 1, () => Promise.reject(new Error('postgres down'))),
    /postgres down/,
  );
  const commit = exporter.getFinishedSpans().find((s) => s.name === 'planner.commit')!;
  assert.equal(commit.status.message, 'postgres down');
});

test('without a tracer no span is made, and snapshots still record the newest trace id', async () => {
  exporter.reset();
  const spans = new BatchTrace(null);
  spans.fold(message(1, published(traceA, '4'.repeat(16))), () => undefined);
  spans.fold(message(2, published(traceB, '5'.repeat(16))), () => undefined);
  let announced: Readonly<Record<string, string>> | undefined;
  await spans.commit(2, 2, async (headers) => {
    announced = headers;
    return 1;
  });
  assert.equal(spans.traceId, traceB);
  assert.deepEqual(announced, {}, 'announcements carry no trace context');
  assert.equal(exporter.getFinishedSpans().length, 0);
});
